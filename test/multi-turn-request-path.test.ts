import { describe, expect } from 'vitest'
import { resultForFile } from '../src/report/result/result-json.ts'
import { validateModeFile } from '../src/report/result/schema/modes.ts'
import { type RequestProgress, type RunOutcome, runBenchmark } from '../src/runner/run-benchmark.ts'
import { configFrom } from './faults/fault-helpers.ts'
import { test } from './helpers.ts'
import { type ProxyCall, startRecordingProxy } from './server-helpers.ts'

// A --multi-turn run goes through the same stages as a run of independent requests: a stop while
// it prepares or measures ends it with what it measured, and the run extras wrap its turns.

/** Flags of a small multi-turn run against `baseUrl`: 3 conversations of 2 turns. */
function multiTurnFlags(baseUrl: string, extra: string[] = []): string[] {
  return [
    '--base-url',
    baseUrl,
    '--backend',
    'openai-chat',
    '--tokenizer',
    'cl100k_base',
    '--random-input-len',
    '24',
    '--random-output-len',
    '6',
    '--multi-turn',
    '--multi-turn-num-turns',
    '2',
    '--num-prompts',
    '3',
    '--disable-tqdm',
    ...extra,
  ]
}

/** The outcome is a multi-turn one, and its result, as the writer writes it, is a valid file. */
function multiTurnResult(outcome: RunOutcome) {
  if (outcome.kind !== 'multi-turn') throw new Error(`a ${outcome.kind} run`)
  const file = JSON.parse(JSON.stringify(resultForFile(outcome.result, false)))
  expect(validateModeFile(file)).toEqual({ valid: true })
  return outcome.result
}

const posts = (calls: readonly ProxyCall[]): ProxyCall[] => calls.filter((c) => c.method === 'POST')

describe('a multi-turn run on the request path', () => {
  test('stopped while the served model is looked up, it sends nothing and its result is marked interrupted', async ({
    sim,
  }) => {
    const stop = new AbortController()
    // /v1/models is held: only the stop ends the lookup.
    const proxy = await startRecordingProxy(
      sim.url,
      () => false,
      (call) => {
        if (call.path !== '/v1/models') return false
        stop.abort()
        return true
      },
    )
    try {
      const outcome = await runBenchmark(configFrom(multiTurnFlags(proxy.url)), { signal: stop.signal })
      const result = multiTurnResult(outcome)
      expect(outcome).toMatchObject({ interrupted: true, records: [] })
      expect(result).toMatchObject({ completed: 0, failed: 0, conversations_completed: 0, interrupted: true })
      expect(result.model_id).toBe('unknown')
      expect(Object.keys(result).at(-1)).toBe('interrupted')
      expect(posts(proxy.calls)).toEqual([])
    } finally {
      await proxy.close()
    }
  })

  test('stopped in the ready check, it ends without an error and sends no turn of the run', async ({
    sim,
  }) => {
    const stop = new AbortController()
    // The ready check's request is held: only the stop ends it.
    const proxy = await startRecordingProxy(
      sim.url,
      () => false,
      (call) => {
        if (call.method !== 'POST') return false
        stop.abort()
        return true
      },
    )
    try {
      const config = configFrom(multiTurnFlags(proxy.url, ['--ready-check-timeout-sec', '60']))
      const outcome = await runBenchmark(config, { signal: stop.signal })
      const result = multiTurnResult(outcome)
      expect(outcome).toMatchObject({ interrupted: true, records: [] })
      expect(result).toMatchObject({ completed: 0, conversations_completed: 0, conversations_failed: 3 })
      expect(posts(proxy.calls).map((c) => c.headers['x-request-id'])).toEqual([
        `${config.request.requestIdPrefix}conv-0-turn0`,
      ])
    } finally {
      await proxy.close()
    }
  })

  test('carries the run extras: the /metrics scrape, the probe, the self-check and the progress of each turn', async ({
    sim,
  }) => {
    const progress: Array<{ done: number; total: number; request?: RequestProgress }> = []
    const config = configFrom(
      multiTurnFlags(sim.url, [
        '--server-metrics-interval',
        '0.05',
        '--probe-request-rate',
        '20',
        '--multi-turn-delay-ms',
        '60',
      ]),
    )
    const outcome = await runBenchmark(config, {
      onRequestEnd: (done, total, request) => progress.push({ done, total, ...(request ? { request } : {}) }),
    })
    const result = multiTurnResult(outcome)
    expect(result.completed).toBe(6)
    expect(result).toHaveProperty('server_metrics')
    expect(result.probe_completed as number).toBeGreaterThan(0)
    expect(outcome.clientHealth).toBeDefined()
    expect(result.client_health).toMatchObject({ client_threads: 1 })
    expect(progress.map((p) => [p.done, p.total])).toEqual([1, 2, 3, 4, 5, 6].map((done) => [done, 6]))
    for (const { request } of progress) {
      expect(request).toMatchObject({ success: true })
      expect(request!.inFlight).toBeGreaterThanOrEqual(0)
      expect(request!.ttftS).toBeGreaterThan(0)
    }
    // The time since the timed run started, as the live rate reads it: ascending.
    const elapsed = progress.map((p) => p.request!.elapsedS)
    expect(elapsed).toEqual([...elapsed].sort((a, b) => a - b))
  })

  test('stopped while turns are in flight, it aborts them at the second interrupt and keeps what it measured', async ({
    sim,
  }) => {
    const stop = new AbortController()
    const force = new AbortController()
    // Every second turn is held; once the third is, every conversation waits on one: stop, then force.
    let held = 0
    const proxy = await startRecordingProxy(
      sim.url,
      () => false,
      (call) => {
        if (!String(call.headers['x-request-id']).endsWith('-turn1')) return false
        if (++held === 3) {
          stop.abort()
          force.abort()
        }
        return true
      },
    )
    try {
      const config = configFrom(multiTurnFlags(proxy.url, ['--model', 'servebench/sim-model']))
      const outcome = await runBenchmark(config, { signal: stop.signal, forceSignal: force.signal })
      const result = multiTurnResult(outcome)
      expect(outcome.interrupted).toBe(true)
      expect(result).toMatchObject({ completed: 3, failed: 3, interrupted: true })
      expect(result.per_turn_metrics.map((t) => [t.turn_index, t.completed, t.failed])).toEqual([
        [0, 3, 0],
        [1, 0, 3],
      ])
      expect(result.errors.filter((e) => e !== '')).toHaveLength(3)
    } finally {
      await proxy.close()
    }
  })
})
