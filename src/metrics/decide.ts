/**
 * From intervals to verdicts. A check is `pass`, `fail` or `inconclusive`; an inconclusive check
 * says about how many requests would decide it, by scaling the interval's half-width with
 * 1/sqrt(n). Which verdicts let an assertion pass is a policy, kept apart from the decision. Pure.
 */

export type Decision = 'pass' | 'fail' | 'inconclusive'

/**
 * What an inconclusive check does to its assertion: `default` fails it only when the point
 * estimate is past the limit or tolerance, `fail` always fails it, `warn` never does.
 */
export type InconclusivePolicy = 'default' | 'fail' | 'warn'

export interface BoundInput {
  /** Point estimate of the statistic. */
  estimate: number
  /** Interval of the statistic (±Infinity where no bound exists). */
  lower: number
  upper: number
  limit: number
  /** `max`: the statistic must stay at or below the limit (latency); `min`: at or above (throughput). */
  kind: 'max' | 'min'
  /** Sample size behind the interval. */
  n: number
}

export interface ChangeInput {
  /** Relative change of the point estimates (`current / baseline − 1`), natural sign. */
  change: number
  /** Interval of the relative change, natural sign. */
  interval: [number, number]
  /** One-sided p-value toward worse. */
  pValue: number
  direction: 'lower-is-better' | 'higher-is-better'
  /** Relative change tolerated, e.g. 0.1. */
  tolerance: number
  /**
   * Two-sided significance level, matching a (1 − alpha) interval: the change toward worse is
   * significant when its one-sided p-value is below alpha / 2, i.e. when that interval lies
   * entirely on the worse side of zero. @default 0.05
   */
  alpha?: number
  /** Requests in the current sample. */
  n: number
  /**
   * The part of the interval that more requests do not narrow: the lowest and highest run effect
   * (a run's level against the baseline's runs) as relative changes. A check it alone keeps
   * undecided needs no number of requests (Infinity), so extending the run cannot decide it.
   */
  runEffect?: [number, number]
}

export interface DecisionResult {
  verdict: Decision
  /** The point estimate is past the limit (bound) or the tolerance (change). */
  pastLimit: boolean
  /** For `inconclusive`: about how many requests would decide it (Infinity when none would). */
  neededRequests?: number
}

export interface ChangeDecision extends DecisionResult {
  /** The change toward worse is significant (one-sided p below alpha / 2). */
  significant: boolean
  /** The change oriented so that positive is worse. */
  worseChange: number
  /** The interval oriented so that positive is worse, `[better end, worse end]`. */
  worseInterval: [number, number]
}

/**
 * A bound on one sample: pass when the interval lies within the bound (`upper ≤ limit` for `max`),
 * fail when it lies entirely outside (`lower > limit`), otherwise inconclusive.
 */
export function decideBound(input: BoundInput): DecisionResult {
  const sign = input.kind === 'max' ? 1 : -1
  // Orient so that larger is worse: [better end, worse end].
  const est = sign * input.estimate
  const limit = sign * input.limit
  const better = sign === 1 ? input.lower : -input.upper
  const worse = sign === 1 ? input.upper : -input.lower
  const pastLimit = est > limit
  if (worse <= limit) return { verdict: 'pass', pastLimit }
  if (better > limit) return { verdict: 'fail', pastLimit }
  return {
    verdict: 'inconclusive',
    pastLimit,
    neededRequests: scaleNeeded(input.n, est, better, worse, limit),
  }
}

/**
 * A baseline comparison with tolerance t (change oriented so that positive is worse): fail when the
 * change toward worse is significant AND the point change is past t; pass when the interval's
 * worse end is at most t; otherwise inconclusive.
 */
export function decideChange(input: ChangeInput): ChangeDecision {
  const alpha = input.alpha ?? 0.05
  const sign = input.direction === 'lower-is-better' ? 1 : -1
  const worseChange = sign * input.change
  const [a, b] = input.interval.map((x) => sign * x) as [number, number]
  const worseInterval: [number, number] = [Math.min(a, b), Math.max(a, b)]
  const significant = input.pValue < alpha / 2
  const pastLimit = worseChange > input.tolerance
  const base = { significant, worseChange, worseInterval, pastLimit }
  if (significant && pastLimit) return { verdict: 'fail', ...base }
  if (worseInterval[1] <= input.tolerance) return { verdict: 'pass', ...base }
  // Past the tolerance but not significant: decided once the better end clears 0. Within the
  // tolerance: decided once the worse end comes down to t.
  const limit = pastLimit ? 0 : input.tolerance
  const neededRequests = runEffectKeepsUndecided(input, sign, pastLimit)
    ? Number.POSITIVE_INFINITY
    : scaleNeeded(input.n, worseChange, worseInterval[0], worseInterval[1], limit)
  return { verdict: 'inconclusive', ...base, neededRequests }
}

// With endless requests the interval shrinks to the point change times the run effects: when that
// still reaches past the tolerance (or, for a change past it, back to no change), it stays open.
function runEffectKeepsUndecided(input: ChangeInput, sign: number, pastLimit: boolean): boolean {
  if (!input.runEffect) return false
  const ends = input.runEffect.map((e) => sign * ((1 + input.change) * (1 + e) - 1))
  return pastLimit ? Math.min(...ends) <= 0 : Math.max(...ends) > input.tolerance
}

/**
 * Whether a check lets its assertion pass: `pass` always, `fail` never, `inconclusive` by the
 * policy (`default`: only while the point estimate is within the limit or tolerance).
 */
export function checkPasses(decision: DecisionResult, policy: InconclusivePolicy = 'default'): boolean {
  if (decision.verdict === 'pass') return true
  if (decision.verdict === 'fail') return false
  if (policy === 'fail') return false
  if (policy === 'warn') return true
  return !decision.pastLimit
}

/**
 * Requests needed for an interval oriented so that larger is worse to clear `limit` on the side of
 * the estimate, assuming its half-widths shrink as 1/sqrt(n): `n · (half-width / distance)²`.
 */
export function scaleNeeded(
  n: number,
  estimate: number,
  better: number,
  worse: number,
  limit: number,
): number {
  const distance = Math.abs(limit - estimate)
  if (!(distance > 0)) return Number.POSITIVE_INFINITY
  const halfWidth = estimate < limit ? worse - estimate : estimate - better
  if (!Number.isFinite(halfWidth)) return Number.POSITIVE_INFINITY
  return Math.max(n + 1, Math.ceil(n * (halfWidth / distance) ** 2))
}
