import { describe, expect, it } from 'vitest'
import { checkPasses, decideBound, decideChange, scaleNeeded } from './decide.ts'

describe('decideBound', () => {
  const bound = { estimate: 90, lower: 80, upper: 100, n: 400 }

  it('passes a latency whose interval ends exactly at the limit', () => {
    expect(decideBound({ ...bound, limit: 100, kind: 'max' })).toEqual({ verdict: 'pass', pastLimit: false })
  })

  it('is inconclusive when the lower end sits exactly on the limit, and fails just above it', () => {
    expect(decideBound({ ...bound, limit: 80, kind: 'max' }).verdict).toBe('inconclusive')
    expect(decideBound({ ...bound, limit: 79.999, kind: 'max' })).toEqual({
      verdict: 'fail',
      pastLimit: true,
    })
  })

  it('mirrors the rule for a throughput floor', () => {
    expect(decideBound({ ...bound, limit: 80, kind: 'min' }).verdict).toBe('pass')
    expect(decideBound({ ...bound, limit: 100.001, kind: 'min' }).verdict).toBe('fail')
    expect(decideBound({ ...bound, limit: 100, kind: 'min' }).verdict).toBe('inconclusive')
  })

  it('says how many requests would decide a straddling bound (half-width 10, distance 5 → 4n)', () => {
    const d = decideBound({ ...bound, limit: 95, kind: 'max' })
    expect(d).toEqual({ verdict: 'inconclusive', pastLimit: false, neededRequests: 1600 })
    expect(decideBound({ ...bound, limit: 90, kind: 'max' }).neededRequests).toBe(Number.POSITIVE_INFINITY)
  })

  it('cannot scale an interval with no upper bound', () => {
    const d = decideBound({ ...bound, upper: Number.POSITIVE_INFINITY, limit: 95, kind: 'max' })
    expect(d.verdict).toBe('inconclusive')
    expect(d.neededRequests).toBe(Number.POSITIVE_INFINITY)
  })
})

describe('decideChange', () => {
  const lower = { direction: 'lower-is-better', tolerance: 0.1, n: 200 } as const

  it('fails a significant change past the tolerance', () => {
    const d = decideChange({ ...lower, change: 0.15, interval: [0.12, 0.19], pValue: 0.001 })
    expect(d).toMatchObject({ verdict: 'fail', significant: true, pastLimit: true })
  })

  it('passes when the worse end is exactly the tolerance', () => {
    expect(decideChange({ ...lower, change: 0.05, interval: [0, 0.1], pValue: 0.04 }).verdict).toBe('pass')
  })

  it('does not fail a point change exactly at the tolerance, nor a one-sided p-value exactly at alpha / 2', () => {
    const atTolerance = decideChange({ ...lower, change: 0.1, interval: [0.05, 0.15], pValue: 0.001 })
    expect(atTolerance).toMatchObject({ verdict: 'inconclusive', pastLimit: false })
    expect(atTolerance.neededRequests).toBe(Number.POSITIVE_INFINITY)
    const atAlpha = decideChange({ ...lower, change: 0.2, interval: [-0.01, 0.4], pValue: 0.025 })
    expect(atAlpha).toMatchObject({ verdict: 'inconclusive', significant: false, pastLimit: true })
  })

  it('orients a throughput drop as worse', () => {
    const d = decideChange({
      ...lower,
      direction: 'higher-is-better',
      change: -0.15,
      interval: [-0.19, -0.11],
      pValue: 0.001,
    })
    expect(d).toMatchObject({ verdict: 'fail', worseChange: 0.15 })
    expect(d.worseInterval[0]).toBeCloseTo(0.11, 12)
    expect(d.worseInterval[1]).toBeCloseTo(0.19, 12)
  })

  it('estimates the requests that would decide an inconclusive change', () => {
    // Within tolerance: worse end 0.16 is 0.11 above the estimate 0.05, 0.05 short of t → (0.11/0.05)²·n.
    const within = decideChange({ ...lower, change: 0.05, interval: [-0.06, 0.16], pValue: 0.2 })
    expect(within.neededRequests).toBe(Math.ceil(200 * (0.11 / 0.05) ** 2))
    // Past tolerance, not significant: better end −0.05 is 0.25 below 0.2 → (0.25/0.2)²·n.
    const past = decideChange({ ...lower, change: 0.2, interval: [-0.05, 0.45], pValue: 0.08 })
    expect(past.neededRequests).toBe(Math.ceil(200 * (0.25 / 0.2) ** 2))
  })

  it('needs no number of requests when the run effect alone keeps a change undecided', () => {
    const undecided = { ...lower, change: 0.02, interval: [-0.1, 0.16] as [number, number], pValue: 0.3 }
    // Runs of the baseline 8% apart: 1.02 × 1.08 − 1 = 10.16% stays past the 10% tolerance.
    expect(decideChange({ ...undecided, runEffect: [-0.08, 0.08] }).neededRequests).toBe(
      Number.POSITIVE_INFINITY,
    )
    // 7% apart: 1.02 × 1.07 − 1 = 9.14%, which more requests can bring the worse end down to.
    expect(decideChange({ ...undecided, runEffect: [-0.07, 0.07] }).neededRequests).toBeLessThan(
      Number.POSITIVE_INFINITY,
    )
    // Past the tolerance: significant only if the lowest run effect keeps it above no change.
    const past = { ...lower, change: 0.15, interval: [-0.02, 0.3] as [number, number], pValue: 0.06 }
    expect(decideChange({ ...past, runEffect: [-0.14, 0.1] }).neededRequests).toBe(Number.POSITIVE_INFINITY)
    expect(decideChange({ ...past, runEffect: [-0.1, 0.1] }).neededRequests).toBeLessThan(
      Number.POSITIVE_INFINITY,
    )
  })
})

describe('checkPasses', () => {
  const inconclusive = (pastLimit: boolean) => ({ verdict: 'inconclusive' as const, pastLimit })
  it('applies the policies to an inconclusive check', () => {
    expect(checkPasses(inconclusive(false))).toBe(true)
    expect(checkPasses(inconclusive(true))).toBe(false)
    expect(checkPasses(inconclusive(false), 'fail')).toBe(false)
    expect(checkPasses(inconclusive(true), 'warn')).toBe(true)
    expect(checkPasses({ verdict: 'fail', pastLimit: true }, 'warn')).toBe(false)
  })

  it('never asks for fewer requests than it has', () => {
    expect(scaleNeeded(100, 0, -1, 1, 50)).toBe(101)
  })
})
