import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect } from 'vitest'
import { blockEventLoop } from '../../perf/block-event-loop.ts'
import { runBenchmark } from '../../src/runner/run-benchmark.ts'
import { configFrom, smallRunFlags } from '../faults/fault-helpers.ts'
import { readOnlyResult, runCli, test } from '../helpers.ts'
import { onQuietMachine } from './cpu-share.ts'

// Serial project: these runs measure the client's own timing, so nothing else may run beside them.

// 40 requests at 20 req/s: about two seconds of open-loop traffic.
const openLoop = (url: string): string[] =>
  smallRunFlags(url, ['--num-prompts', '40', '--request-rate', '20', '--max-concurrency', '40'])

describe('client self-check', () => {
  test('a client whose event loop is blocked 60 ms of every 100 ms is marked saturated', async ({ sim }) => {
    const config = configFrom(openLoop(sim.url))
    const unblock = blockEventLoop(60, 100)
    let outcome: Awaited<ReturnType<typeof runBenchmark>>
    try {
      outcome = await runBenchmark(config)
    } finally {
      unblock()
    }
    const health = outcome.clientHealth!
    expect(health.state).toBe('saturated')
    expect(health.eventLoopDelayP99Ms).toBeGreaterThan(health.thresholds.eventLoopDelayP99Ms)
    expect(health.reasons[0]).toMatch(
      /^event-loop delay p99 \d+(\.\d)? ms \(limit \d+(\.\d)? ms for a median ITL of \d+(\.\d)? ms\): the client, not the server, set these latencies$/,
    )
    expect(outcome.result.client_health).toMatchObject({
      state: 'saturated',
      saturated: true,
      reasons: health.reasons,
    })
  })

  test('a run with no interference is not saturated', async ({ sim, skip }) => {
    const { result: outcome, busy } = await onQuietMachine(() => runBenchmark(configFrom(openLoop(sim.url))))
    expect(outcome.clientHealth?.state).not.toBe('too-short')
    // On a busy machine the operating system itself starves the client, and saying so is right.
    if (busy) return skip(busy)
    expect(outcome.clientHealth?.reasons).toEqual([])
    expect(outcome.result.client_health).toMatchObject({ state: 'ok', saturated: false, reasons: [] })
  })
})

describe('a closed loop first wave', () => {
  test.override({ simOptions: { ttftMs: 300, itlMs: 100 } })
  test('a closed loop first wave alone does not make a run saturated', async ({ sim }) => {
    // 1,000 requests released at once, each reading 4 slow tokens: the release is the busy part,
    // and it is reported as the first wave's figure, not judged as lateness.
    const config = configFrom(
      smallRunFlags(sim.url, [
        '--num-prompts',
        '1000',
        '--max-concurrency',
        '1000',
        '--random-output-len',
        '4',
      ]),
    )
    const outcome = await runBenchmark(config)
    const health = outcome.clientHealth!
    expect(health.loop).toBe('closed')
    expect(health.firstWaveRequests).toBe(1000)
    expect(health.firstWaveReleaseMs).toBeGreaterThan(0)
    expect(health.dispatchLagSamples).toBe(0)
    expect(health.rules.filter((r) => r.rule === 'dispatch-lateness').map((r) => r.state)).toEqual([
      'too-short',
    ])
    expect(health.reasons.filter((r) => r.includes('dispatch lag'))).toEqual([])
  })
})

describe('short honest runs are not saturated', () => {
  // A new user's first tries: 10–50 requests all at once, no concurrency limit. Too short to
  // judge or ok; never saturated by the client's own work. (A stall the operating system makes is
  // saturation too, and its remedy says so: a quieter machine.)
  const runs: Array<[string, string[]]> = [
    ['completions, random', ['--num-prompts', '20']],
    [
      'chat, random, the server counting tokens',
      ['--backend', 'openai-chat', '--num-prompts', '50', '--tokenizer', 'server'],
    ],
    ['completions, prefix_repetition', ['--dataset-name', 'prefix_repetition', '--num-prompts', '10']],
    [
      'embeddings, batches of 4',
      ['--backend', 'openai-embeddings', '--num-prompts', '20', '--random-batch-size', '4'],
    ],
    ['rerank', ['--backend', 'vllm-rerank', '--dataset-name', 'random-rerank', '--num-prompts', '10']],
  ]
  for (const [name, flags] of runs) {
    test(name, async ({ sim, skip }) => {
      const { result: run, busy } = await onQuietMachine(() =>
        runCli(
          [
            'serve',
            '--base-url',
            sim.url,
            ...(flags.includes('--tokenizer') ? [] : ['--tokenizer', 'cl100k_base']),
            '--disable-tqdm',
            ...flags,
            '--request-rate',
            'inf',
          ],
          { defaultClientCheck: true },
        ),
      )
      const line = /\nClient self-check: (ok|too short to judge|SATURATED) — .*/.exec(run.stdout)?.[0] ?? ''
      expect(line).not.toBe('')
      if (line.includes('SATURATED')) {
        // Never the client's own work: only the machine's.
        expect(line).toContain('Remedy: a quieter machine')
        expect(run.code).toBe(4)
        return skip(
          busy ?? 'the operating system stalled the client: saturated, with a quieter machine as the remedy',
        )
      }
      expect(run.stderr).not.toContain('FAILED')
      expect(run.code).toBe(0)
    })
  }
})

// The CLI's client is starved by a preload that blocks its thread 60 ms of every 100 ms.
const BLOCKER = join(import.meta.dirname, 'fixtures/block-event-loop.mjs')
const starved = { env: { NODE_OPTIONS: `--import ${pathToFileURL(BLOCKER).href}` }, defaultClientCheck: true }

describe('servebench serve --client-check', () => {
  test('exits 4 after writing the result when the client was saturated (the default, fail)', async ({
    sim,
    tmpDir,
  }) => {
    const run = await runCli(
      ['serve', ...openLoop(sim.url), '--save-result', '--result-dir', tmpDir],
      starved,
    )
    expect(run.code).toBe(4)
    expect(run.stdout).toMatch(
      /\n=+\nClient self-check: SATURATED — event-loop delay p99 \d+(\.\d)? ms \(limit \d+(\.\d)? ms for a median ITL of [\d.]+ ms\): the client, not the server, set these latencies.*\. Remedy: /,
    )
    expect(run.stderr).toContain(
      'servebench: FAILED: the client was saturated, so these latencies measure the client, not the server (exit 4; --client-check warn keeps exit 0)',
    )
    const result = await readOnlyResult(tmpDir)
    expect(result.client_health).toMatchObject({ state: 'saturated', saturated: true })
    expect(Object.keys(result).at(-1)).toBe('client_health')
  })

  test('--client-check warn prints the line and keeps exit 0', async ({ sim }) => {
    const run = await runCli(['serve', ...openLoop(sim.url), '--client-check', 'warn'], starved)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Client self-check: SATURATED — ')
    expect(run.stderr).not.toContain('servebench: FAILED')
  })

  test('a run in which every request failed exits 1 and is not called saturated', async () => {
    // Nothing listens there: every request fails at once, in a tight loop.
    const run = await runCli(
      ['serve', ...smallRunFlags('http://127.0.0.1:9', ['--num-prompts', '40', '--model', 'm'])],
      starved,
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('Client self-check: not judged — no request succeeded\n')
    expect(run.stdout).not.toContain('SATURATED')
  })

  test('a CLI run with no interference prints ok and exits 0 on the default', async ({ sim, skip }) => {
    const { result: run, busy } = await onQuietMachine(() =>
      runCli(['serve', ...openLoop(sim.url)], { defaultClientCheck: true }),
    )
    if (busy) return skip(busy)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(
      /\nClient self-check: ok — event-loop delay p99 [\d.]+ ms \(limit [\d.]+ ms\), busy \d+%, dispatch lag p99 [\d.]+ ms \(limit [\d.]+ ms\), GC [\d.]+ ms\n/,
    )
  })
})

describe('a client squeezed onto one busy core', () => {
  test.override({ simOptions: { ttftMs: 20, itlMs: 2 } })
  test('a client squeezed onto one busy core while it reads a fast stream is flagged, and exits 4', async ({
    sim,
    skip,
  }) => {
    if (process.platform !== 'linux') return skip('taskset is Linux only')
    // Three busy loops share core 0 with the client: it gets about a quarter of that core.
    const loops: ChildProcess[] = Array.from({ length: 3 }, () =>
      spawn('taskset', ['-c', '0', process.execPath, '-e', 'for (;;) {}'], { stdio: 'ignore' }),
    )
    try {
      const run = await runCli(
        [
          'serve',
          ...smallRunFlags(sim.url, [
            '--num-prompts',
            '128',
            '--max-concurrency',
            '64',
            '--random-output-len',
            '64',
          ]),
        ],
        { defaultClientCheck: true, wrap: ['taskset', '-c', '0'] },
      )
      expect(run.stdout).toContain('Client self-check: SATURATED — ')
      expect(run.code).toBe(4)
    } finally {
      for (const loop of loops) loop.kill('SIGKILL')
    }
  })
})
