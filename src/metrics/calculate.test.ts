import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { RequestRecord } from '../config/records.ts'
import { calculateMetrics, type MetricsOptions, percentileKey } from './calculate.ts'

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/results/records.json', import.meta.url), 'utf8'),
) as {
  options: MetricsOptions
  records: RequestRecord[]
}
const python = JSON.parse(
  readFileSync(new URL('../../fixtures/results/python-summary.json', import.meta.url), 'utf8'),
) as Record<string, number>

function record(overrides: Partial<RequestRecord>): RequestRecord {
  return {
    requestId: 'r',
    success: true,
    error: '',
    generatedText: '',
    promptLen: 10,
    outputTokens: null,
    outputLen: 2,
    ttftS: 0.1,
    itlS: [0.1],
    latencyS: 0.2,
    startTimeS: 0,
    arrivalTimeS: 0,
    queueTimeS: 0,
    ...overrides,
  }
}

const base: MetricsOptions = {
  durationS: 1,
  percentileMetrics: ['ttft', 'tpot', 'itl'],
  metricPercentiles: [99],
  hasTokenizer: true,
  requestRateFinite: false,
}

describe('calculateMetrics on the Python fixture', () => {
  const m = calculateMetrics(fixture.records, fixture.options)

  it('matches the aggregates Python computed from the same records', () => {
    expect(m.completed).toBe(python.completed)
    expect(m.failed).toBe(python.failed)
    expect(m.totalInputTokens).toBe(python.total_input_tokens)
    expect(m.totalOutputTokens).toBe(python.total_output_tokens)
    expect(m.requestThroughput).toBe(python.request_throughput)
    expect(m.requestGoodput).toBe(python.request_goodput)
    expect(m.outputThroughput).toBe(python.output_throughput)
    expect(m.totalTokenThroughput).toBe(python.total_token_throughput)
    expect(m.maxOutputTokensPerS).toBe(python.max_output_tokens_per_s)
    expect(m.maxConcurrentRequests).toBe(python.max_concurrent_requests)
  })

  it('yields every statistic with the key, order and value numpy gave', () => {
    const expected = Object.entries(python).filter(([key]) => /_ms$/.test(key))
    expect(m.statistics).toEqual(expected)
  })
})

describe('calculateMetrics', () => {
  it('counts input tokens of successful requests only, and no output for failures', () => {
    const m = calculateMetrics(
      [record({ promptLen: 7, outputLen: 3 }), record({ success: false, promptLen: 100, outputLen: 0 })],
      base,
    )
    expect(m.totalInputTokens).toBe(7)
    expect(m.totalOutputTokens).toBe(3)
    expect(m.failed).toBe(1)
  })

  it('leaves requests with one output token or fewer out of TPOT', () => {
    const m = calculateMetrics(
      [
        record({ outputLen: 1, ttftS: 0.1, latencyS: 5 }),
        record({ outputLen: 3, ttftS: 0.1, latencyS: 0.3, itlS: [0.1, 0.1] }),
      ],
      base,
    )
    const stats = Object.fromEntries(m.statistics)
    expect(stats.mean_tpot_ms).toBeCloseTo(100, 9)
    expect(stats.std_tpot_ms).toBe(0)
    // TTFT still counts both requests.
    expect(stats.mean_ttft_ms).toBeCloseTo(100, 9)
  })

  it('pools the gaps of every successful request for ITL and ignores failed ones', () => {
    const m = calculateMetrics(
      [record({ itlS: [0.01, 0.03] }), record({ itlS: [0.02] }), record({ success: false, itlS: [9] })],
      base,
    )
    expect(Object.fromEntries(m.statistics).mean_itl_ms).toBeCloseTo(20, 9)
  })

  it('writes null goodput without SLOs and 0-valued statistics when everything failed', () => {
    const m = calculateMetrics([record({ success: false })], { ...base, goodput: {} })
    expect(m.requestGoodput).toBeNull()
    expect(m.statistics.every(([, v]) => v === 0)).toBe(true)
    expect(m.maxOutputTokensPerS).toBe(0)
    expect(m.maxConcurrentRequests).toBe(0)
  })

  it('emits families in Python order whatever the selection order', () => {
    const m = calculateMetrics([record({})], { ...base, percentileMetrics: ['e2el', 'itl', 'ttft'] })
    expect(m.statistics.map(([k]) => k)).toEqual([
      'mean_ttft_ms',
      'median_ttft_ms',
      'std_ttft_ms',
      'p99_ttft_ms',
      'mean_itl_ms',
      'median_itl_ms',
      'std_itl_ms',
      'p99_itl_ms',
      'mean_e2el_ms',
      'median_e2el_ms',
      'std_e2el_ms',
      'p99_e2el_ms',
    ])
  })

  it('omits ttft, tpot and itl without a tokenizer but keeps e2el', () => {
    const m = calculateMetrics([record({})], {
      ...base,
      hasTokenizer: false,
      percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el'],
    })
    expect(m.statistics.map(([k]) => k)).toEqual([
      'mean_e2el_ms',
      'median_e2el_ms',
      'std_e2el_ms',
      'p99_e2el_ms',
    ])
  })

  it('computes client queue statistics only with a concurrency limit, queue-inclusive E2EL only at a finite rate', () => {
    const all: MetricsOptions['percentileMetrics'] = ['client_queue_time', 'e2el_including_client_queue']
    const keys = (o: Partial<MetricsOptions>) =>
      calculateMetrics([record({ queueTimeS: 0.5 })], {
        ...base,
        percentileMetrics: all,
        ...o,
      }).statistics.map(([k]) => k)
    expect(keys({})).toEqual([])
    expect(keys({ maxConcurrency: 4 })).toEqual([
      'mean_client_queue_time_ms',
      'median_client_queue_time_ms',
      'std_client_queue_time_ms',
      'p99_client_queue_time_ms',
    ])
    expect(keys({ maxConcurrency: 4, requestRateFinite: true })).toHaveLength(8)
    const stats = Object.fromEntries(
      calculateMetrics([record({ queueTimeS: 0.5, latencyS: 0.2 })], {
        ...base,
        percentileMetrics: all,
        maxConcurrency: 4,
        requestRateFinite: true,
      }).statistics,
    )
    expect(stats.mean_client_queue_time_ms).toBe(500)
    expect(stats.mean_e2el_including_client_queue_ms).toBeCloseTo(700, 9)
  })

  it('counts token chunks per integer second from the earliest start', () => {
    // Chunks at 0.5, 0.6, 0.7 (second 0) and 1.2, 1.3 (second 1); the second request adds 1.25.
    const m = calculateMetrics(
      [
        record({ startTimeS: 0, ttftS: 0.5, itlS: [0.1, 0.1, 0.5, 0.1], latencyS: 1.3, outputLen: 5 }),
        record({ startTimeS: 1, ttftS: 0.25, itlS: [], latencyS: 0.25, outputLen: 1 }),
      ],
      base,
    )
    expect(m.maxOutputTokensPerS).toBe(3)
    expect(m.maxConcurrentRequests).toBe(2)
  })
})

describe('percentileKey', () => {
  it('writes whole percentiles as ints and others as Python floats', () => {
    expect(percentileKey(99)).toBe('p99')
    expect(percentileKey(50.0)).toBe('p50')
    expect(percentileKey(99.9)).toBe('p99.9')
    expect(percentileKey(0.5)).toBe('p0.5')
  })
})
