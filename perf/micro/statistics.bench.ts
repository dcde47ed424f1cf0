/**
 * The metrics' hot paths: Python's percentiles and statistics over a run's samples, and the block
 * bootstrap behind every verdict. Run: `npm run perf:micro`.
 */
import { bench, describe } from 'vitest'
import type { RequestRecord } from '../../src/config/records.ts'
import { blockBootstrapInterval } from '../../src/metrics/block-bootstrap.ts'
import { assignBlocks } from '../../src/metrics/blocks.ts'
import { msStatistics } from '../../src/metrics/calculate.ts'
import { bufferStatistic } from '../../src/metrics/fast-statistic.ts'
import { percentile } from '../../src/metrics/percentile.ts'
import { createRng } from '../../src/rng.ts'
import { runMetrics } from './run-metrics.ts'

const rng = createRng(1)
// 2,000 requests of 64 tokens: 126,000 ITL samples, and the requests' TTFTs and start times.
const itls = Array.from({ length: 126_000 }, () => 0.02 + rng.exponential(0.005))
const ttfts = Array.from({ length: 2_000 }, () => 0.05 + rng.exponential(0.02))
const starts = Float64Array.from({ length: 2_000 }, (_, i) => i * 0.01)
const p99 = bufferStatistic('p99')!

describe('percentiles', () => {
  bench('p99 of 126k ITLs (sort + numpy linear)', () => {
    percentile(itls, 99)
  })
  bench('mean, median, std, p50/p90/p99 of 126k ITLs (msStatistics)', () => {
    msStatistics('itl', itls, [50, 90, 99])
  })
})

describe("a run's metrics", () => {
  const records: RequestRecord[] = ttfts.map((ttftS, i) => ({
    success: true,
    error: '',
    generatedText: '',
    promptLen: 32,
    outputTokens: 64,
    outputLen: 64,
    ttftS,
    itlS: itls.slice(i * 63, i * 63 + 63),
    latencyS: ttftS + 63 * 0.02,
    startTimeS: starts[i]!,
    arrivalTimeS: starts[i]!,
    queueTimeS: 0,
    requestId: String(i),
  }))
  bench('calculateMetrics, 2,000 requests of 64 tokens (ttft, tpot, itl, e2el)', () => {
    runMetrics(records)
  })
})

describe('block bootstrap', () => {
  const run = { values: Float64Array.from(ttfts), blocks: assignBlocks(starts) }
  bench('p99 TTFT interval, 2,000 requests, 1,000 resamples', () => {
    blockBootstrapInterval([run], p99, { resamples: 1_000, seed: 0 })
  })
})
