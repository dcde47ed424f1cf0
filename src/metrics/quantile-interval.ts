/**
 * Distribution-free confidence intervals of a quantile from order statistics: for the p-quantile of
 * n samples, ranks l and u with `P(X(l) ≤ q_p ≤ X(u)) ≥ c` taken from the exact Bin(n, p)
 * distribution, since the number of samples below q_p is Bin(n, p). No assumption about the shape of
 * the latency distribution; the price is that a high quantile needs enough samples for a rank to
 * exist at all (the upper bound of p99 needs n ≥ 367 at 95 %). Pure.
 */
import { binomialCdf, binomialSf } from './binomial.ts'
import { percentileSorted } from './percentile.ts'

/** 1-based ranks into the sorted sample; undefined when no rank gives the confidence. */
export interface QuantileRanks {
  lower: number | undefined
  upper: number | undefined
}

export interface QuantileInterval {
  /** numpy 'linear' percentile of the sample. */
  estimate: number
  /** `X(l)`, or `-Infinity` when no rank exists. */
  lower: number
  /** `X(u)`, or `+Infinity` when no rank exists. */
  upper: number
  ranks: QuantileRanks
}

/** Which bounds an interval has: both (two-sided), or one with all of `1 - c` on its side. */
export type IntervalSides = 'two-sided' | 'upper' | 'lower'

/** Largest sample size searched by {@link quantileRequestsNeeded}; beyond it the answer is Infinity. */
export const MAX_NEEDED_REQUESTS = 1e9

/**
 * Ranks of the order statistics that bound the p-quantile (p in (0, 1)) of n samples with
 * confidence c. Two-sided intervals put `(1 - c) / 2` in each tail; one-sided bounds put `1 - c` on
 * their side and leave the other rank undefined.
 */
export function quantileRanks(
  n: number,
  p: number,
  confidence = 0.95,
  sides: IntervalSides = 'two-sided',
): QuantileRanks {
  checkArgs(n, p, confidence)
  const tail = sides === 'two-sided' ? (1 - confidence) / 2 : 1 - confidence
  return {
    lower: sides === 'upper' ? undefined : lowerRank(n, p, tail),
    upper: sides === 'lower' ? undefined : upperRank(n, p, tail),
  }
}

/** The interval of the p-quantile (p in (0, 1)) of an ascending sample. */
export function quantileInterval(
  sorted: ArrayLike<number>,
  p: number,
  confidence = 0.95,
  sides: IntervalSides = 'two-sided',
): QuantileInterval {
  const n = sorted.length
  const ranks = quantileRanks(n, p, confidence, sides)
  return {
    estimate: percentileSorted(sorted, p * 100),
    lower: ranks.lower === undefined ? Number.NEGATIVE_INFINITY : sorted[ranks.lower - 1]!,
    upper: ranks.upper === undefined ? Number.POSITIVE_INFINITY : sorted[ranks.upper - 1]!,
    ranks,
  }
}

/** Smallest n for which the (two-sided or one-sided) upper bound of the p-quantile exists. */
export function minSamplesForUpperBound(
  p: number,
  confidence = 0.95,
  sides: IntervalSides = 'two-sided',
): number {
  const tail = sides === 'two-sided' ? (1 - confidence) / 2 : 1 - confidence
  // The upper rank exists once P(all n samples below q_p) = p^n ≤ tail.
  return Math.max(1, Math.ceil(Math.log(tail) / Math.log(p) - 1e-12))
}

/**
 * About how many requests would decide whether the p-quantile is below or above `limit`, assuming
 * the empirical distribution of `sorted` stays as it is: the smallest m at which m requests drawn
 * from it more likely than not give a two-sided interval entirely on the estimate's side of the
 * limit (upper ≤ limit, or lower > limit).
 * Infinity when the estimate equals the limit (or the sample's mass at the limit makes it
 * undecidable); beyond {@link MAX_NEEDED_REQUESTS} also Infinity.
 */
export function quantileRequestsNeeded(
  sorted: ArrayLike<number>,
  p: number,
  limit: number,
  confidence = 0.95,
): number {
  const n = sorted.length
  if (n === 0) return Number.POSITIVE_INFINITY
  const estimate = percentileSorted(sorted, p * 100)
  if (estimate === limit) return Number.POSITIVE_INFINITY
  const atOrBelow = countAtOrBelow(sorted, limit) / n
  const tail = (1 - confidence) / 2
  // m draws from the empirical distribution hold K ~ Bin(m, F(limit)) values ≤ limit, so
  // X(u) ≤ limit when K ≥ u and X(l) > limit when K < l. "Decided" = more likely than not.
  const decided =
    estimate < limit
      ? (m: number): boolean => {
          const u = upperRank(m, p, tail)
          return u !== undefined && binomialSf(u, m, atOrBelow) >= 0.5
        }
      : (m: number): boolean => {
          const l = lowerRank(m, p, tail)
          return l !== undefined && binomialCdf(l - 1, m, atOrBelow) >= 0.5
        }
  return smallestSatisfying(decided)
}

/** Smallest m ≥ 1 with `ok(m)`, for a predicate that holds from some m on (doubling, then bisection). */
export function smallestSatisfying(ok: (m: number) => boolean): number {
  let hi = 1
  while (!ok(hi)) {
    if (hi >= MAX_NEEDED_REQUESTS) return Number.POSITIVE_INFINITY
    hi *= 2
  }
  let lo = Math.floor(hi / 2)
  if (hi === 1) return 1
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (ok(mid)) hi = mid
    else lo = mid
  }
  return hi
}

// Largest l with P(X(l) > q) = P(Bin(n, p) ≤ l - 1) ≤ tail; undefined when even l = 1 fails.
function lowerRank(n: number, p: number, tail: number): number | undefined {
  if (binomialCdf(0, n, p) > tail) return undefined
  let lo = 1 // holds
  let hi = n + 1 // fails (l ≤ n)
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (binomialCdf(mid - 1, n, p) <= tail) lo = mid
    else hi = mid
  }
  return lo
}

// Smallest u with P(X(u) < q) = P(Bin(n, p) ≥ u) ≤ tail; undefined when even u = n fails.
function upperRank(n: number, p: number, tail: number): number | undefined {
  if (binomialSf(n, n, p) > tail) return undefined
  let lo = 0 // fails (u ≥ 1)
  let hi = n // holds
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (binomialSf(mid, n, p) <= tail) hi = mid
    else lo = mid
  }
  return hi
}

function countAtOrBelow(sorted: ArrayLike<number>, x: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}

function checkArgs(n: number, p: number, confidence: number): void {
  if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`sample size must be an integer ≥ 1 (got ${n})`)
  if (!(p > 0 && p < 1)) throw new RangeError(`quantile must be in (0, 1) (got ${p})`)
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be in (0, 1) (got ${confidence})`)
}
