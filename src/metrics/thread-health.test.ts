import { describe, expect, it } from 'vitest'
import { summarizeClientHealth, withThreadHealth } from './client-health.ts'

const summary = (eventLoopP99Ms: number) =>
  summarizeClientHealth({
    durationS: 10,
    eventLoopDelayMs: { p50: 1, p99: eventLoopP99Ms, max: eventLoopP99Ms },
    dispatchLagsMs: [1, 2, 3],
    cpuTimeMs: 2_000,
    cpuCount: 4,
    gcPausesMs: [3],
  })

describe('withThreadHealth', () => {
  it('keeps the main thread figures, lists each thread, and is saturated when any thread is', () => {
    const healthy = withThreadHealth(summary(2), [summary(3), summary(4)])
    expect(healthy.saturated).toBe(false)
    expect(healthy.threads).toHaveLength(2)
    expect(healthy.eventLoopDelayP99Ms).toBe(2)
    const starved = withThreadHealth(summary(2), [summary(3), summary(80)])
    expect(starved.saturated).toBe(true)
    expect(starved.reasons).toEqual([
      'client thread 1: event-loop delay p99 80 ms (limit 50 ms): the client, not the server, set these latencies',
    ])
  })
})
