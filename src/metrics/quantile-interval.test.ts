import { describe, expect, it } from 'vitest'
import { createRng, type Rng } from '../rng.ts'
import { binomialCdf, binomialSf, logGamma } from './binomial.ts'
import {
  minSamplesForUpperBound,
  quantileInterval,
  quantileRanks,
  quantileRequestsNeeded,
} from './quantile-interval.ts'

// P(Bin(n, p) ≤ k) by direct summation of the pmf (log space), the reference for small n.
function directCdf(k: number, n: number, p: number): number {
  let total = 0
  for (let i = 0; i <= k; i++) {
    const logChoose = logGamma(n + 1) - logGamma(i + 1) - logGamma(n - i + 1)
    total += Math.exp(logChoose + i * Math.log(p) + (n - i) * Math.log1p(-p))
  }
  return total
}

describe('binomial tails', () => {
  it('match direct summation', () => {
    for (const n of [1, 7, 40, 300])
      for (const p of [0.01, 0.5, 0.9, 0.99])
        for (let k = 0; k < n; k += Math.max(1, Math.floor(n / 9))) {
          expect(binomialCdf(k, n, p)).toBeCloseTo(directCdf(k, n, p), 12)
          expect(binomialSf(k + 1, n, p)).toBeCloseTo(1 - directCdf(k, n, p), 12)
        }
  })

  it('stay finite and ordered for n = 10^6', () => {
    const below = binomialCdf(989_000, 1_000_000, 0.99)
    const above = binomialSf(991_000, 1_000_000, 0.99)
    expect(below).toBeGreaterThan(0)
    expect(below).toBeLessThan(1e-20)
    expect(above).toBeLessThan(1e-20)
    expect(binomialCdf(990_000, 1_000_000, 0.99)).toBeCloseTo(0.5, 1)
  })
})

describe('quantileRanks', () => {
  it('gives the textbook ranks of the median of 100 (40 and 61)', () => {
    expect(quantileRanks(100, 0.5)).toEqual({ lower: 40, upper: 61 })
  })

  it('has no upper bound of p99 from 60 samples, and one from 368', () => {
    expect(quantileRanks(60, 0.99).upper).toBeUndefined()
    expect(quantileRanks(367, 0.99).upper).toBeUndefined()
    expect(quantileRanks(368, 0.99).upper).toBe(368)
    const iv = quantileInterval(
      Array.from({ length: 60 }, (_, i) => i),
      0.99,
    )
    expect(iv.upper).toBe(Number.POSITIVE_INFINITY)
    expect(iv.lower).toBeGreaterThan(50)
  })

  it('gives one-sided bounds with all of 1 - c on one side', () => {
    expect(quantileRanks(299, 0.99, 0.95, 'upper')).toEqual({ lower: undefined, upper: 299 })
    expect(quantileRanks(298, 0.99, 0.95, 'upper').upper).toBeUndefined()
    expect(quantileRanks(100, 0.5, 0.95, 'lower').lower).toBe(42)
  })

  it('tabulates the smallest n for an upper bound', () => {
    expect([0.5, 0.9, 0.99, 0.999].map((p) => minSamplesForUpperBound(p))).toEqual([6, 36, 368, 3688])
    expect([0.5, 0.9, 0.99, 0.999].map((p) => minSamplesForUpperBound(p, 0.95, 'upper'))).toEqual([
      5, 29, 299, 2995,
    ])
  })

  it('is fast and sane for n = 10^6', () => {
    const r = quantileRanks(1_000_000, 0.99)
    expect(r.lower).toBeLessThan(990_000)
    expect(r.upper).toBeGreaterThan(990_000)
    expect(r.upper! - r.lower!).toBeLessThan(500)
  })

  it('rejects a quantile outside (0, 1)', () => {
    expect(() => quantileRanks(10, 1)).toThrow('quantile must be in (0, 1) (got 1)')
  })
})

const distributions: Array<{ name: string; draw: (rng: Rng) => number; quantile: (p: number) => number }> = [
  { name: 'uniform', draw: (rng) => rng.next(), quantile: (p) => p },
  { name: 'exponential', draw: (rng) => -Math.log(1 - rng.next()), quantile: (p) => -Math.log(1 - p) },
  {
    name: 'Pareto(1.5)',
    draw: (rng) => (1 - rng.next()) ** (-1 / 1.5),
    quantile: (p) => (1 - p) ** (-1 / 1.5),
  },
]

describe('quantile interval coverage (2000 draws each)', () => {
  for (const dist of distributions) {
    for (const [p, n] of [
      [0.5, 50],
      [0.9, 120],
      [0.99, 400],
    ] as const) {
      it(`covers p${p * 100} of ${dist.name} from ${n} samples at least 94% of the time`, () => {
        const rng = createRng(1000 + n)
        const truth = dist.quantile(p)
        const sample = new Float64Array(n)
        let covered = 0
        for (let draw = 0; draw < 2000; draw++) {
          for (let i = 0; i < n; i++) sample[i] = dist.draw(rng)
          sample.sort()
          const iv = quantileInterval(sample, p)
          if (iv.lower <= truth && truth <= iv.upper) covered++
        }
        expect(covered / 2000).toBeGreaterThanOrEqual(0.94)
      })
    }
  }
})

describe('quantileRequestsNeeded', () => {
  const sorted = Array.from({ length: 1000 }, (_, i) => i)

  it('is Infinity when the estimate equals the limit', () => {
    expect(quantileRequestsNeeded(sorted, 0.5, 499.5)).toBe(Number.POSITIVE_INFINITY)
  })

  it('grows as the limit nears the estimate', () => {
    const far = quantileRequestsNeeded(sorted, 0.9, 950)
    const near = quantileRequestsNeeded(sorted, 0.9, 920)
    expect(far).toBeLessThan(near)
    expect(far).toBeGreaterThan(50)
  })

  it('for the median 0.1% off the limit: about (1.96·0.5/0.001)² ≈ 960,000', () => {
    const m = quantileRequestsNeeded(sorted, 0.5, 500)
    expect(m).toBeGreaterThan(900_000)
    expect(m).toBeLessThan(1_050_000)
  })

  it('needs at least the n for which the bound exists (p99 below a limit)', () => {
    expect(quantileRequestsNeeded(sorted, 0.99, 999)).toBeGreaterThanOrEqual(368)
  })
})
