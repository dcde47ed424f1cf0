import { describe, expect, it } from 'vitest'
import {
  type ClientHealthSamples,
  DEFAULT_CLIENT_HEALTH_THRESHOLDS,
  formatMs,
  summarizeClientHealth,
} from './client-health.ts'

// Figures of a healthy 2-second run against the simulator on a loaded 2-core machine (docs/client-health.md).
const healthy: ClientHealthSamples = {
  durationS: 2,
  eventLoopDelayMs: { p50: 0.4, p99: 7.5, max: 21.7 },
  dispatchLagsMs: [0, 0.2, -0.5, 0.4, 1, 3, 0.1, 0.3, 0.2, 7.8],
  cpuTimeMs: 240,
  cpuCount: 2,
  gcPausesMs: [12, 27.6],
}

describe('summarizeClientHealth', () => {
  it('passes a healthy run and reports its figures', () => {
    const s = summarizeClientHealth(healthy)
    expect(s.saturated).toBe(false)
    expect(s.reasons).toEqual([])
    expect(s.eventLoopDelayP99Ms).toBe(7.5)
    // A request released up to 1 ms early (the dispatcher does not sleep under 1 ms) counts as 0.
    expect(s.dispatchLagP50Ms).toBeCloseTo(0.25, 12)
    // numpy linear: position 0.99 × 9 = 8.91 between 3 and 7.8.
    expect(s.dispatchLagP99Ms).toBeCloseTo(3 + 0.91 * 4.8, 12)
    expect(s.dispatchLagMaxMs).toBe(7.8)
    expect(s.cpuShareOfCore).toBeCloseTo(0.12, 12)
    expect(s.cpuCount).toBe(2)
    expect(s.gcCount).toBe(2)
    expect(s.gcTotalMs).toBeCloseTo(39.6, 12)
    expect(s.gcMaxMs).toBe(27.6)
    expect(s.thresholds).toEqual(DEFAULT_CLIENT_HEALTH_THRESHOLDS)
  })

  it('names each threshold passed, in order, as a user reads it', () => {
    const s = summarizeClientHealth({
      durationS: 2,
      eventLoopDelayMs: { p50: 3, p99: 61.94, max: 62 },
      dispatchLagsMs: Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 58.7 : 1)),
      cpuTimeMs: 1900,
      cpuCount: 2,
      gcPausesMs: [150.4],
    })
    expect(s.saturated).toBe(true)
    expect(s.reasons).toEqual([
      'event-loop delay p99 61.9 ms (limit 50 ms): the client, not the server, set these latencies',
      'dispatch lag p99 58.7 ms (limit 50 ms): requests left later than scheduled, so the server got less load than asked',
      'CPU 95% of a core (limit 90%): the client had no time to spare for reading responses',
      'GC pause 150 ms (limit 100 ms): garbage collection stopped the client mid-run',
    ])
  })

  it('counts a figure equal to its limit as healthy', () => {
    const t = DEFAULT_CLIENT_HEALTH_THRESHOLDS
    const s = summarizeClientHealth({
      durationS: 1,
      eventLoopDelayMs: { p50: 0, p99: t.eventLoopDelayP99Ms, max: t.eventLoopDelayP99Ms },
      dispatchLagsMs: [t.dispatchLagP99Ms],
      cpuTimeMs: t.cpuShareOfCore * 1000,
      cpuCount: 1,
      gcPausesMs: [t.gcMaxMs],
    })
    expect(s.reasons).toEqual([])
  })

  it('applies the thresholds it is given', () => {
    const s = summarizeClientHealth(healthy, { ...DEFAULT_CLIENT_HEALTH_THRESHOLDS, eventLoopDelayP99Ms: 5 })
    expect(s.saturated).toBe(true)
    expect(s.reasons).toEqual([
      'event-loop delay p99 7.5 ms (limit 5 ms): the client, not the server, set these latencies',
    ])
    expect(s.thresholds.eventLoopDelayP99Ms).toBe(5)
  })

  it('reports zeros for a run with no requests, no GC and no time', () => {
    const s = summarizeClientHealth({
      durationS: 0,
      eventLoopDelayMs: { p50: 0, p99: 0, max: 0 },
      dispatchLagsMs: [],
      cpuTimeMs: 5,
      cpuCount: 4,
      gcPausesMs: [],
    })
    expect(s).toMatchObject({
      saturated: false,
      dispatchLagP99Ms: 0,
      dispatchLagMaxMs: 0,
      cpuShareOfCore: 0,
      gcCount: 0,
      gcMaxMs: 0,
    })
  })
})

describe('formatMs', () => {
  it('keeps one decimal below 100 ms and none above', () => {
    expect(formatMs(0.42)).toBe('0.4 ms')
    expect(formatMs(38)).toBe('38 ms')
    expect(formatMs(38.04)).toBe('38.0 ms')
    expect(formatMs(120.4)).toBe('120 ms')
  })
})
