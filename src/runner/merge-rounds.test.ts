import { describe, expect, it } from 'vitest'
import { defaultBenchConfig } from '../config/defaults.ts'
import type { RequestRecord } from '../config/records.ts'
import { calculateMetrics } from '../metrics/calculate.ts'
import { buildResult } from '../report/result/result-json.ts'
import { mergeRounds } from './merge-rounds.ts'
import type { RunOutcome } from './run-benchmark.ts'

// One round of `n` requests starting at monotonic time `t0`, one every 0.1 s, each 0.5 s long.
function round(t0: number, n: number, ttftS: number): RunOutcome {
  const config = defaultBenchConfig()
  const records: RequestRecord[] = Array.from({ length: n }, (_, i) => ({
    success: true,
    error: '',
    generatedText: 'x',
    promptLen: 8,
    outputTokens: 4,
    ttftS,
    itlS: [0.1, 0.1, 0.1],
    latencyS: 0.5,
    startTimeS: t0 + i * 0.1,
    arrivalTimeS: t0 + i * 0.1,
    queueTimeS: 0,
    requestId: String(i),
    outputLen: 4,
  }))
  const durationS = (n - 1) * 0.1 + 0.5
  const metrics = calculateMetrics(records, {
    durationS,
    percentileMetrics: config.percentileMetrics,
    metricPercentiles: config.metricPercentiles,
    hasTokenizer: true,
    requestRateFinite: false,
  })
  const setup = {
    date: '20260101-000000',
    backend: 'openai',
    modelId: 'm',
    tokenizerId: 't',
    numPrompts: n,
    numWarmups: 0,
    metadata: [],
    requestRate: Number.POSITIVE_INFINITY,
    burstiness: 1,
  }
  return {
    kind: 'generation',
    result: buildResult(setup, metrics, records),
    records,
    interrupted: false,
    retries: { retries: 0, retriedRequests: 1, recovered: 1 },
  }
}

describe('mergeRounds', () => {
  it('returns a single round as it is', () => {
    const only = round(100, 4, 0.05)
    expect(mergeRounds(defaultBenchConfig(), [only])).toBe(only)
  })

  it('judges all rounds as one run: counts and durations add up, metrics are computed again', () => {
    const merged = mergeRounds(defaultBenchConfig(), [round(100, 10, 0.05), round(500, 5, 0.15)])
    expect(merged.records).toHaveLength(15)
    expect(merged.result).toMatchObject({ completed: 15, failed: 0, num_prompts: 15 })
    expect(merged.result.duration).toBeCloseTo(1.4 + 0.9, 9)
    expect(merged.result.request_throughput).toBeCloseTo(15 / 2.3, 9)
    expect(merged.result.mean_ttft_ms).toBeCloseTo(((10 * 0.05 + 5 * 0.15) / 15) * 1000, 9)
    expect(merged.retries).toEqual({ retries: 0, retriedRequests: 2, recovered: 2 })
  })

  it('moves each later round to start where the earlier ones ended, so there is no gap between them', () => {
    const merged = mergeRounds(defaultBenchConfig(), [round(100, 10, 0.05), round(500, 5, 0.15)])
    const starts = merged.records.map((r) => r.startTimeS)
    // The first round ends 1.4 s after it started; the second starts right there.
    expect(starts[10]).toBeCloseTo(101.4, 9)
    expect(starts[14]).toBeCloseTo(101.8, 9)
    expect(merged.result.start_times).toEqual(starts)
  })

  it('sums the cached tokens of every round with --report-cached-tokens', () => {
    const rounds = [round(100, 3, 0.05), round(200, 2, 0.05)]
    for (const [k, r] of rounds.entries()) for (const record of r.records) record.cachedTokens = 4 + k
    const config = defaultBenchConfig()
    config.output.reportCachedTokens = true
    expect(mergeRounds(config, rounds).result.total_cached_tokens).toBe(3 * 4 + 2 * 5)
    expect(mergeRounds(defaultBenchConfig(), rounds).result).not.toHaveProperty('total_cached_tokens')
  })

  it('puts the scraped server series of the rounds end to end, moved as their requests were', () => {
    const a = round(100, 10, 0.05)
    const b = round(500, 5, 0.15)
    a.result.server_metrics = { source: 's', interval_s: 1, t_s: [100, 101], series: { w: [0, 3] } }
    b.result.server_metrics = {
      source: 's',
      interval_s: 1,
      t_s: [500, 500.5],
      series: { w: [2, 0], r: [1, 1] },
    }
    const merged = mergeRounds(defaultBenchConfig(), [a, b])
    const server = merged.result.server_metrics as { t_s: number[]; series: Record<string, number[]> }
    expect(server.series).toEqual({ w: [0, 3, 2, 0], r: [0, 0, 1, 1] })
    // The second round starts where the first ended (101.4), as its requests do.
    expect(server.t_s.map((t) => Number(t.toFixed(9)))).toEqual([100, 101, 101.4, 101.9])
    b.result.server_metrics = undefined
    expect(mergeRounds(defaultBenchConfig(), [a, b]).result.server_metrics).toBeUndefined()
  })
})
