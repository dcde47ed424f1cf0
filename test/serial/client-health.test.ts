import { describe, expect } from 'vitest'
import { runBenchmark } from '../../src/runner/run-benchmark.ts'
import { configFrom, smallRunFlags } from '../faults/fault-helpers.ts'
import { test } from '../helpers.ts'

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
      /^event-loop delay p99 \d+(\.\d)? ms \(limit 30 ms\): the client, not the server, set these latencies$/,
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
