import { describe, expect, it } from 'vitest'
import type { RequestRecord } from '../config/records.ts'
import { intendedDelaysS, intendedStatistics } from './intended.ts'

function record(over: Partial<RequestRecord>): RequestRecord {
  return {
    success: true,
    error: '',
    generatedText: '',
    promptLen: 10,
    outputTokens: 4,
    outputLen: 4,
    ttftS: 0.1,
    itlS: [0.01, 0.01, 0.01],
    latencyS: 0.13,
    startTimeS: 100,
    arrivalTimeS: 100,
    queueTimeS: 0,
    requestId: 'r',
    ...over,
  }
}

// A server that serves one request at a time, 100 ms each, offered one every 50 ms: each request
// waits longer for its slot than the one before, which plain TTFT does not show.
const stalled = [0, 1, 2, 3].map((i) =>
  record({ intendedTimeS: 100 + i * 0.05, startTimeS: 100 + i * 0.1, arrivalTimeS: 100 + i * 0.05 }),
)

describe('intended latency', () => {
  it('measures each request from its intended send time', () => {
    const delays = intendedDelaysS(stalled)
    expect(delays.map((d) => Math.round(d * 1000))).toEqual([0, 50, 100, 150])
  })

  it('counts a request released early as no delay, and one without an intended time as 0', () => {
    expect(intendedDelaysS([record({ intendedTimeS: 100.0005 }), record({})])).toEqual([0, 0])
  })

  it('gives mean, median, std and each percentile per family, in ms, over successful requests', () => {
    const failed = record({ success: false, error: 'boom', intendedTimeS: 90, startTimeS: 100 })
    const stats = Object.fromEntries(
      intendedStatistics([...stalled, failed], {
        metricPercentiles: [50, 99],
        families: ['intended_ttft', 'intended_e2el'],
      }),
    )
    expect(Object.keys(stats)).toEqual([
      'mean_intended_ttft_ms',
      'median_intended_ttft_ms',
      'std_intended_ttft_ms',
      'p50_intended_ttft_ms',
      'p99_intended_ttft_ms',
      'mean_intended_e2el_ms',
      'median_intended_e2el_ms',
      'std_intended_e2el_ms',
      'p50_intended_e2el_ms',
      'p99_intended_e2el_ms',
    ])
    expect(stats.mean_intended_ttft_ms).toBeCloseTo(175, 9)
    expect(stats.p99_intended_ttft_ms).toBeCloseTo(100 + 148.5, 9)
    expect(stats.mean_intended_e2el_ms).toBeCloseTo(205, 9)
  })

  it('writes only the families asked for (pooling: E2EL)', () => {
    const keys = intendedStatistics(stalled, { metricPercentiles: [99], families: ['intended_e2el'] }).map(
      ([k]) => k,
    )
    expect(keys).toEqual([
      'mean_intended_e2el_ms',
      'median_intended_e2el_ms',
      'std_intended_e2el_ms',
      'p99_intended_e2el_ms',
    ])
  })
})
