import { describe, expect, it } from 'vitest'
import { createRng } from '../rng.ts'
import { bootstrapDifference, compareSamples, mannWhitneyU } from './compare-distributions.ts'

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length

function sample(n: number, mu: number, sd: number, seed: number): number[] {
  const rng = createRng(seed)
  return Array.from({ length: n }, () => mu + sd * rng.normal())
}

describe('mannWhitneyU', () => {
  // Reference: scipy.stats.mannwhitneyu([1..5], [6..10], method='asymptotic') → U=0, p=0.012185
  it('matches scipy for fully separated samples', () => {
    const r = mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    expect(r.u).toBe(0)
    expect(r.pValue).toBeCloseTo(0.012185, 5)
  })

  // Reference: scipy.stats.mannwhitneyu([1,2,2,3], [2,3,3,4], alternative='less', method='asymptotic')
  // → U=3.0, p=0.086017 (tie-corrected variance)
  it('corrects the variance for ties', () => {
    const r = mannWhitneyU([1, 2, 2, 3], [2, 3, 3, 4], 'less')
    expect(r.u).toBe(3)
    expect(r.pValue).toBeCloseTo(0.086017, 5)
  })

  it('is symmetric in its two-sided p-value and U sums to n1·n2', () => {
    const a = sample(30, 10, 2, 1)
    const b = sample(40, 11, 2, 2)
    const ab = mannWhitneyU(a, b)
    const ba = mannWhitneyU(b, a)
    expect(ab.pValue).toBeCloseTo(ba.pValue, 12)
    expect(ab.u + ba.u).toBe(30 * 40)
  })

  it('returns p=1 when every value is equal', () => {
    expect(mannWhitneyU([3, 3], [3, 3, 3]).pValue).toBe(1)
  })
})

describe('bootstrapDifference', () => {
  it('brackets the true difference of means', () => {
    const r = bootstrapDifference(sample(200, 100, 10, 3), sample(200, 130, 10, 4), mean)
    expect(r.ci[0]).toBeLessThan(30)
    expect(r.ci[1]).toBeGreaterThan(30)
    expect(r.relative).toBeCloseTo(0.3, 1)
    expect(r.relativeCi[0]).toBeGreaterThan(0.2)
  })

  it('is reproducible for a seed', () => {
    const a = sample(50, 1, 1, 5)
    const b = sample(50, 1, 1, 6)
    expect(bootstrapDifference(a, b, mean, { seed: 7 })).toEqual(bootstrapDifference(a, b, mean, { seed: 7 }))
  })

  it('rejects empty samples and bad options with a RangeError', () => {
    expect(() => bootstrapDifference([], [1], mean)).toThrow(new RangeError('baseline sample is empty'))
    expect(() => bootstrapDifference([1], [1], mean, { confidence: 1 })).toThrow(RangeError)
  })
})

describe('compareSamples', () => {
  const opts = { direction: 'lower-is-better', tolerance: 0.1 } as const

  it('flags a 30% latency increase', () => {
    const r = compareSamples(sample(100, 20, 3, 8), sample(100, 26, 3, 9), mean, opts)
    expect(r).toMatchObject({ pastTolerance: true, significant: true, regressed: true })
    expect(r.pValue).toBeLessThan(1e-6)
  })

  it('does not flag two samples of the same distribution', () => {
    const r = compareSamples(sample(100, 20, 3, 10), sample(100, 20, 3, 11), mean, opts)
    expect(r.regressed).toBe(false)
  })

  it('does not flag a large but noisy change on tiny samples', () => {
    const r = compareSamples([10, 50, 12], [60, 11, 13], mean, opts)
    expect(r.pastTolerance).toBe(true)
    expect(r.significant).toBe(false)
    expect(r.regressed).toBe(false)
  })

  it('does not flag an improvement, and reads throughput the other way round', () => {
    expect(compareSamples(sample(100, 20, 3, 12), sample(100, 14, 3, 13), mean, opts).regressed).toBe(false)
    const thr = { direction: 'higher-is-better', tolerance: 0.1 } as const
    expect(compareSamples(sample(50, 100, 5, 14), sample(50, 70, 5, 15), mean, thr).regressed).toBe(true)
    expect(compareSamples(sample(50, 100, 5, 14), sample(50, 130, 5, 15), mean, thr).regressed).toBe(false)
  })

  it('keeps a significant change inside the tolerance a pass', () => {
    const r = compareSamples(sample(2000, 100, 1, 16), sample(2000, 105, 1, 17), mean, opts)
    expect(r.significant).toBe(true)
    expect(r.regressed).toBe(false)
  })
})
