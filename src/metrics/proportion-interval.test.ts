import { describe, expect, it } from 'vitest'
import { createRng } from '../rng.ts'
import {
  normalQuantile,
  normalSf,
  proportionInterval,
  proportionRequestsNeeded,
} from './proportion-interval.ts'

describe('proportionInterval', () => {
  // Reference: statsmodels proportion_confint(95, 100, method='wilson') → (0.88825, 0.97846)
  it('matches the Wilson interval of statsmodels', () => {
    const iv = proportionInterval(95, 100)
    expect(iv.lower).toBeCloseTo(0.88825, 5)
    expect(iv.upper).toBeCloseTo(0.97846, 5)
  })

  it('stays inside [0, 1] and is exact at the ends', () => {
    expect(proportionInterval(0, 10)).toMatchObject({ estimate: 0, lower: 0 })
    expect(proportionInterval(10, 10)).toMatchObject({ estimate: 1, upper: 1 })
    expect(proportionInterval(0, 10).upper).toBeCloseTo(0.27753, 5)
  })

  it('names the bad argument', () => {
    expect(() => proportionInterval(11, 10)).toThrow('successes must be an integer in [0, 10] (got 11)')
  })

  for (const [p, n] of [
    [0.5, 40],
    [0.95, 200],
    [0.02, 500],
  ] as const) {
    it(`covers p=${p} from n=${n} at least 94% of 2000 draws`, () => {
      const rng = createRng(7 + n)
      let covered = 0
      for (let draw = 0; draw < 2000; draw++) {
        let k = 0
        for (let i = 0; i < n; i++) if (rng.next() < p) k++
        const iv = proportionInterval(k, n)
        if (iv.lower <= p && p <= iv.upper) covered++
      }
      expect(covered / 2000).toBeGreaterThanOrEqual(0.94)
    })
  }
})

describe('proportionRequestsNeeded', () => {
  it('finds the n at which 95% good excludes a 90% limit, fewer for a farther limit', () => {
    const m = proportionRequestsNeeded(95, 100, 0.9)
    expect(m).toBe(139)
    expect(proportionRequestsNeeded(95, 100, 0.85)).toBeLessThan(m)
    expect(proportionRequestsNeeded(5, 100, 0.1)).toBe(m)
  })

  it('is Infinity when the fraction equals the limit', () => {
    expect(proportionRequestsNeeded(9, 10, 0.9)).toBe(Number.POSITIVE_INFINITY)
  })
})

describe('normal helpers', () => {
  it('agree with each other and with z(0.975) = 1.959964', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6)
    expect(normalQuantile(0.5)).toBe(0)
    expect(normalSf(normalQuantile(0.999))).toBeCloseTo(0.001, 6)
  })
})
