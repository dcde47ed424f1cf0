import { describe, expect, it } from 'vitest'
import { createRng } from '../rng.ts'
import { assignBlocks } from './blocks.ts'
import { checkProportionBound, checkStatisticBound } from './bound-check.ts'
import { percentile } from './percentile.ts'

function run(n: number, seed: number): { values: number[]; blocks: Int32Array } {
  const rng = createRng(seed)
  const values = Array.from({ length: n }, () => 100 * Math.exp(0.25 * rng.normal()))
  return { values, blocks: assignBlocks(values.map((_, i) => i)) }
}

describe('checkStatisticBound', () => {
  const sample = run(1000, 1)
  const p99 = percentile(sample.values, 99)

  it('passes a p99 bound far above the estimate and fails one far below it', () => {
    expect(checkStatisticBound(sample, 'p99', 2 * p99, { kind: 'max' }).verdict).toBe('pass')
    expect(checkStatisticBound(sample, 'p99', p99 / 2, { kind: 'max' }).verdict).toBe('fail')
  })

  it('is inconclusive near the estimate and says how many requests would decide it', () => {
    const c = checkStatisticBound(sample, 'p99', p99 * 1.02, { kind: 'max' })
    expect(c.verdict).toBe('inconclusive')
    expect(c.pastLimit).toBe(false)
    expect(c.neededRequests).toBeGreaterThan(1000)
    expect(c.interval[0]).toBeLessThan(c.estimate)
    expect(c.interval[1]).toBeGreaterThan(c.estimate)
  })

  it('cannot pass a p99 bound from 60 requests, however loose', () => {
    const small = run(60, 2)
    const c = checkStatisticBound(small, 'p99', 1e9, { kind: 'max' })
    expect(c.verdict).toBe('inconclusive')
    expect(c.interval[1]).toBe(Number.POSITIVE_INFINITY)
    expect(c.neededRequests).toBeGreaterThanOrEqual(368)
  })

  it('uses the block bootstrap for a mean, and mirrors it for a floor', () => {
    const mean = sample.values.reduce((a, b) => a + b, 0) / sample.values.length
    expect(checkStatisticBound(sample, 'mean', mean * 1.1, { kind: 'max' }).verdict).toBe('pass')
    expect(checkStatisticBound(sample, 'mean', mean * 0.9, { kind: 'min' }).verdict).toBe('pass')
    expect(checkStatisticBound(sample, 'mean', mean * 1.1, { kind: 'min' }).verdict).toBe('fail')
    expect(checkStatisticBound(sample, 'mean', mean * 1.1, { kind: 'max' }).estimate).toBeCloseTo(mean, 10)
  })

  it('is inconclusive on no samples and names an unknown statistic', () => {
    expect(checkStatisticBound({ values: [], blocks: [] }, 'mean', 1, { kind: 'max' }).verdict).toBe(
      'inconclusive',
    )
    expect(() => checkStatisticBound(sample, 'avg', 1, { kind: 'max' })).toThrow("unknown statistic 'avg'")
  })
})

describe('checkProportionBound', () => {
  it('decides a goodput fraction against a floor', () => {
    expect(checkProportionBound(990, 1000, 0.95, 'min').verdict).toBe('pass')
    expect(checkProportionBound(800, 1000, 0.95, 'min').verdict).toBe('fail')
    const open = checkProportionBound(96, 100, 0.95, 'min')
    expect(open.verdict).toBe('inconclusive')
    expect(open.neededRequests).toBeGreaterThan(100)
  })

  it('decides an error rate against a ceiling', () => {
    expect(checkProportionBound(0, 1000, 0.01, 'max').verdict).toBe('pass')
    expect(checkProportionBound(0, 10, 0.01, 'max').verdict).toBe('inconclusive')
  })
})
