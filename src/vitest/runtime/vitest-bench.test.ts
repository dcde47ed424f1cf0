import { describe, expect, it } from 'vitest'
import type { ServeBenchResult } from '../shared/meta.ts'
import {
  benchStatistics,
  isServebenchBenchFn,
  isServebenchProvider,
  servebenchBenchFn,
  tCritical95,
  toVitestBenchResult,
} from './vitest-bench.ts'

describe('tCritical95', () => {
  // Reference: Student's t table, two-sided 95 % (scipy.stats.t.ppf(0.975, df)).
  it.each([
    [1, 12.7062],
    [2, 4.3027],
    [3, 3.1824],
    [5, 2.5706],
    [10, 2.2281],
    [30, 2.0423],
    [1000, 1.9623],
  ])('df %i gives %f', (df, expected) => {
    expect(tCritical95(df)).toBeCloseTo(expected, 2)
  })
})

describe('benchStatistics', () => {
  it('computes tinybench statistics of a sample (sample variance, t margin of error)', () => {
    const s = benchStatistics([4, 1, 3, 2])
    expect(s).toMatchObject({ min: 1, max: 4, mean: 2.5, p50: 2.5, p75: 3.25, samplesCount: 4, df: 3 })
    expect(s.variance).toBeCloseTo(5 / 3, 12)
    expect(s.sem).toBeCloseTo(Math.sqrt(5 / 3) / 2, 12)
    expect(s.moe).toBeCloseTo(s.sem * tCritical95(3), 12)
    expect(s.rme).toBeCloseTo((100 * s.moe) / 2.5, 12)
    expect(s.aad).toBe(1)
    expect(s.mad).toBe(1)
    expect(s.samples).toBeUndefined()
    expect(benchStatistics([2, 1], true).samples).toEqual([1, 2])
  })

  it('gives zeros for an empty sample', () => {
    expect(benchStatistics([])).toMatchObject({ samplesCount: 0, mean: 0, p99: 0, sd: 0 })
  })
})

describe('toVitestBenchResult', () => {
  const result = {
    completed: 2,
    failed: 1,
    ttfts: [0.01, 0.02, 0],
    latencies: [0.1, 0.2, 0.05],
    output_lens: [4, 4, 0],
    itls: [[], [], []],
    errors: ['', '', 'HTTP 500'],
  } as unknown as ServeBenchResult

  it('uses the successful requests’ end-to-end latencies in ms', () => {
    const r = toVitestBenchResult('chat', result)
    expect(r).toMatchObject({ name: 'chat', state: 'completed', runtime: 'node' })
    expect(r.latency).toMatchObject({ min: 100, max: 200, samplesCount: 2 })
    expect(r.totalTime).toBeCloseTo(300, 9)
    expect(r.period).toBeCloseTo(150, 9)
    expect(r.throughput).toMatchObject({ min: 5, max: 10, samplesCount: 2 })
  })

  it('tags the bench() function that servebench’s provider recognises', () => {
    const fn = servebenchBenchFn('chat', result, false)
    expect(isServebenchBenchFn(fn)).toBe(true)
    expect(isServebenchBenchFn(() => 1)).toBe(false)
    expect(fn().latency.samplesCount).toBe(2)
  })

  it('recognises the provider path the plugin sets', () => {
    expect(isServebenchProvider('/x/node_modules/servebench/dist/vitest/runtime/provider.js')).toBe(true)
    expect(isServebenchProvider('/repo/src/vitest/runtime/provider.ts')).toBe(true)
    expect(isServebenchProvider('/repo/bench/my-provider.ts')).toBe(false)
    expect(isServebenchProvider(undefined)).toBe(false)
  })
})
