import { describe, expect, it } from 'vitest'
import { computeSchedule, rateAt } from './index.ts'

// Vectors of the Rust port's rate control tests (rate_control.rs).
describe('computeSchedule', () => {
  it('sends every request at t=0 when the rate is inf', () => {
    const { offsetsS } = computeSchedule(100, { requestRate: Number.POSITIVE_INFINITY, burstiness: 1 }, 0)
    expect(offsetsS.every((t) => t === 0)).toBe(true)
  })

  it('is non-decreasing and ends exactly at n / rate after normalisation', () => {
    const { offsetsS } = computeSchedule(50, { requestRate: 10, burstiness: 1 }, 42)
    for (let i = 1; i < offsetsS.length; i++) expect(offsetsS[i]).toBeGreaterThanOrEqual(offsetsS[i - 1]!)
    expect(offsetsS.at(-1)).toBeCloseTo(5, 10)
  })

  it('spaces requests exactly 1/rate apart with infinite burstiness', () => {
    const { offsetsS } = computeSchedule(10, { requestRate: 5, burstiness: Number.POSITIVE_INFINITY }, 0)
    offsetsS.forEach((t, i) => {
      expect(t).toBeCloseTo(0.2 * (i + 1), 10)
    })
  })

  it('gives the same offsets for the same seed and different ones for another seed', () => {
    const load = { requestRate: 20, burstiness: 0.5 }
    expect(computeSchedule(200, load, 7).offsetsS).toEqual(computeSchedule(200, load, 7).offsetsS)
    expect(computeSchedule(200, load, 8).offsetsS).not.toEqual(computeSchedule(200, load, 7).offsetsS)
  })

  it('draws gaps with mean 1/rate before normalisation, burstier below 1', () => {
    // The coefficient of variation of Gamma(k) gaps is 1/sqrt(k): burstiness 0.25 doubles it against Poisson.
    const cv = (burstiness: number): number => {
      const { offsetsS } = computeSchedule(20_000, { requestRate: 100, burstiness }, 3)
      const gaps = offsetsS.map((t, i) => t - (i === 0 ? 0 : offsetsS[i - 1]!))
      const mean = gaps.reduce((s, g) => s + g, 0) / gaps.length
      const sd = Math.sqrt(gaps.reduce((s, g) => s + (g - mean) ** 2, 0) / gaps.length)
      expect(mean).toBeCloseTo(0.01, 4)
      return sd / mean
    }
    expect(cv(1)).toBeCloseTo(1, 1)
    expect(cv(0.25)).toBeCloseTo(2, 1)
  })

  it('ramps linearly and exponentially between the two rates', () => {
    const linear = {
      requestRate: Number.POSITIVE_INFINITY,
      burstiness: 1,
      rampUp: { strategy: 'linear' as const, startRps: 1, endRps: 10 },
    }
    expect(rateAt(0, 10, linear)).toBe(1)
    expect(rateAt(9, 10, linear)).toBe(10)
    expect(rateAt(4, 10, linear)).toBeCloseTo(5, 10)
    const exp = { ...linear, rampUp: { strategy: 'exponential' as const, startRps: 1, endRps: 100 } }
    const rates = computeSchedule(10, exp, 0).ratesPerS
    expect(rates[0]).toBe(1)
    expect(rates[9]).toBeCloseTo(100, 10)
    for (let i = 1; i < 10; i++) expect(rates[i]).toBeGreaterThanOrEqual(rates[i - 1]!)
  })
})
