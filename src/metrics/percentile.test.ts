import { describe, expect, it } from 'vitest'
import { mean, median, percentile, percentileSorted, std, sum } from './percentile.ts'

// Vectors of the Rust port's statistics tests (metrics/calculator.rs).
describe('the statistics vectors of the Rust port', () => {
  it('mean of [] is 0 and mean of [1,2,3] is 2', () => {
    expect(mean([])).toBe(0)
    expect(mean([1, 2, 3])).toBe(2)
  })

  it('median takes the middle value or the mean of the two middle values', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([1, 2, 3, 4])).toBe(2.5)
    expect(median([])).toBe(0)
  })

  it('percentile 99 of 0..99 is 98.01 (linear)', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i)
    expect(percentile(xs, 99)).toBe(98.01)
  })

  it('a single value is every percentile', () => {
    for (const p of [0, 1, 50, 99, 99.9, 100]) expect(percentile([4.2], p)).toBe(4.2)
  })

  it('every percentile of an empty list is 0', () => {
    for (const p of [0, 50, 99]) expect(percentile([], p)).toBe(0)
  })

  it('std is the population std: std([1,2,3]) = sqrt(2/3)', () => {
    expect(std([1, 2, 3])).toBeCloseTo(Math.sqrt(2 / 3), 15)
    expect(std([])).toBe(0)
    expect(std([5])).toBe(0)
  })
})

// Reference values from numpy 2.4.6: np.mean/np.std/np.median/np.percentile on the same list.
describe('bit parity with numpy', () => {
  const xs = Array.from({ length: 300 }, (_, i) => ((i * 7919) % 1000) / 997)

  it('sums pairwise as np.add.reduce does, not left to right', () => {
    expect(mean(xs)).toBe(0.5020060180541625)
    // A left-to-right sum gives a different last digit; this is why pairwise summation matters.
    expect(xs.reduce((a, b) => a + b, 0) / xs.length).toBe(0.5020060180541632)
    expect(sum([1, 2, 3])).toBe(6)
  })

  it('matches np.std, np.median and np.percentile to the last bit', () => {
    expect(std(xs)).toBe(0.2911202383900212)
    expect(median(xs)).toBe(0.504012036108325)
    expect(percentile(xs, 99.9)).toBe(0.9980972918756269)
    expect(percentile(xs, 37.5)).toBe(0.375)
  })

  it('interpolates from the upper neighbour when the fraction is at least one half', () => {
    expect(percentile([1, 2], 50)).toBe(1.5)
    expect(percentile([0.1, 0.7], 75)).toBe(0.5499999999999999)
  })

  it('does not depend on input order', () => {
    const shuffled = [...xs].reverse()
    expect(percentile(shuffled, 90)).toBe(percentile(xs, 90))
    expect(median(shuffled)).toBe(median(xs))
  })
})

describe('percentileSorted', () => {
  it('reads sorted input directly and returns the ends at 0 and 100', () => {
    expect(percentileSorted([1, 2, 3, 10], 0)).toBe(1)
    expect(percentileSorted([1, 2, 3, 10], 100)).toBe(10)
    expect(percentileSorted([1, 2, 3, 10], 50)).toBe(2.5)
  })

  it('rejects a percentile outside [0, 100]', () => {
    expect(() => percentileSorted([1], 101)).toThrow('percentile must be between 0 and 100 (got 101)')
    expect(() => percentileSorted([1], Number.NaN)).toThrow(RangeError)
  })
})
