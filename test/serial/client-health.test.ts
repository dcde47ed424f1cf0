import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect } from 'vitest'
import { runBenchmark } from '../../src/runner/run-benchmark.ts'
import { configFrom, smallRunFlags } from '../faults/fault-helpers.ts'
import { readOnlyResult, runCli, test } from '../helpers.ts'

// Serial project: these runs measure the client's own timing, so nothing else may run beside them.

/** Blocks this thread for `blockMs` every `everyMs`, as a CPU-bound neighbour in the client would. */
function blockEventLoop(blockMs: number, everyMs: number): () => void {
  const timer = setInterval(() => {
    const until = performance.now() + blockMs
    while (performance.now() < until) {
      // busy
    }
  }, everyMs)
  return () => clearInterval(timer)
}

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
    expect(health.saturated).toBe(true)
    expect(health.eventLoopDelayP99Ms).toBeGreaterThan(health.thresholds.eventLoopDelayP99Ms)
    expect(health.reasons[0]).toMatch(
      /^event-loop delay p99 \d+(\.\d)? ms \(limit 50 ms\): the client, not the server, set these latencies$/,
    )
    expect(outcome.result.client_health).toMatchObject({ saturated: true, reasons: health.reasons })
  })

  test('a run with no interference is not saturated', async ({ sim }) => {
    const outcome = await runBenchmark(configFrom(openLoop(sim.url)))
    expect(outcome.clientHealth?.reasons).toEqual([])
    expect(outcome.clientHealth?.saturated).toBe(false)
    expect(outcome.result.client_health).toMatchObject({ saturated: false, reasons: [] })
  })
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
      /\n=+\nClient self-check: SATURATED — event-loop delay p99 \d+(\.\d)? ms \(limit 50 ms\): the client, not the server, set these latencies/,
    )
    expect(run.stderr).toContain(
      'servebench: FAILED: the client was saturated, so these latencies measure the client, not the server (exit 4; --client-check warn keeps exit 0)',
    )
    const result = await readOnlyResult(tmpDir)
    expect(result.client_health).toMatchObject({ saturated: true })
    expect(Object.keys(result).at(-1)).toBe('client_health')
  })

  test('--client-check warn prints the line and keeps exit 0', async ({ sim }) => {
    const run = await runCli(['serve', ...openLoop(sim.url), '--client-check', 'warn'], starved)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Client self-check: SATURATED — ')
    expect(run.stderr).not.toContain('servebench: FAILED')
  })

  test('a CLI run with no interference prints ok and exits 0 on the default', async ({ sim }) => {
    const run = await runCli(['serve', ...openLoop(sim.url)], { defaultClientCheck: true })
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(
      /\nClient self-check: ok — event-loop delay p99 [\d.]+ ms, dispatch lag p99 [\d.]+ ms, CPU \d+% of a core, GC [\d.]+ ms\n/,
    )
  })
})
