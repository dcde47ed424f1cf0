/**
 * One SLO bound on one run, decided with its uncertainty: the interval of the statistic, the
 * verdict and, when inconclusive, about how many requests would decide it. Percentiles take the
 * distribution-free order-statistic interval, widened to the block bootstrap's where correlated
 * requests make that one wider; means and the other statistics take the block bootstrap; fractions
 * (goodput, error rate) take the Wilson interval. Pure.
 */
import { type BlockedRun, type BootstrapOptions, blockBootstrapInterval } from './block-bootstrap.ts'
import { type DecisionResult, decideBound, scaleNeeded } from './decide.ts'
import { bufferStatistic, quantileLevel } from './fast-statistic.ts'
import { proportionInterval, proportionRequestsNeeded } from './proportion-interval.ts'
import { quantileInterval, quantileRequestsNeeded } from './quantile-interval.ts'

export interface BoundCheck extends DecisionResult {
  estimate: number
  /** Interval of the statistic (±Infinity where no bound exists at this sample size). */
  interval: [number, number]
  /** Sample size behind it. */
  n: number
}

export interface BoundCheckOptions extends BootstrapOptions {
  /** `max`: the statistic must stay at or below the limit; `min`: at or above. */
  kind: 'max' | 'min'
}

/**
 * Checks `statistic` (`mean`, `median`, `std`, `min`, `max`, `pNN`) of one run's blocked sample
 * against `limit`. An empty sample is inconclusive with no interval.
 */
export function checkStatisticBound(
  run: BlockedRun,
  statistic: string,
  limit: number,
  options: BoundCheckOptions,
): BoundCheck {
  const fn = bufferStatistic(statistic)
  if (!fn)
    throw new RangeError(`unknown statistic '${statistic}' (valid: mean, median, std, min, max, p<0–100>)`)
  const n = run.values.length
  if (n === 0)
    return {
      estimate: Number.NaN,
      interval: [Number.NaN, Number.NaN],
      n: 0,
      verdict: 'inconclusive',
      pastLimit: false,
      neededRequests: Number.POSITIVE_INFINITY,
    }
  const boot = blockBootstrapInterval([run], fn, options)
  const level = quantileLevel(statistic)
  if (level === undefined || level <= 0 || level >= 1) {
    const interval: [number, number] = [boot.lower, boot.upper]
    const decision = decideBound({
      estimate: boot.estimate,
      lower: boot.lower,
      upper: boot.upper,
      limit,
      kind: options.kind,
      n,
    })
    return { estimate: boot.estimate, interval, n, ...decision }
  }
  const sorted = Float64Array.from(run.values).sort()
  const order = quantileInterval(sorted, level, options.confidence ?? 0.95)
  const lower = Math.min(order.lower, boot.lower)
  const upper = Math.max(order.upper, boot.upper)
  const decision = decideBound({ estimate: order.estimate, lower, upper, limit, kind: options.kind, n })
  if (decision.verdict === 'inconclusive') {
    // Both answers are estimates; the larger one is the honest one. An interval with an infinite
    // end (no order statistic bounds it yet) says nothing by its width: then only the ranks do.
    const byOrder = quantileRequestsNeeded(sorted, level, limit, options.confidence ?? 0.95)
    const byWidth = scaleNeeded(
      n,
      sign(options.kind) * order.estimate,
      ...oriented(lower, upper, options.kind),
      sign(options.kind) * limit,
    )
    decision.neededRequests =
      Number.isFinite(lower) && Number.isFinite(upper) ? Math.max(byOrder, byWidth) : byOrder
  }
  return { estimate: order.estimate, interval: [lower, upper], n, ...decision }
}

/**
 * Checks a fraction `k / n` against `limit`: `min` for a goodput fraction that must reach it, `max`
 * for an error rate that must stay at or below it.
 */
export function checkProportionBound(
  k: number,
  n: number,
  limit: number,
  kind: 'max' | 'min',
  confidence = 0.95,
): BoundCheck {
  const iv = proportionInterval(k, n, confidence)
  const decision = decideBound({ estimate: iv.estimate, lower: iv.lower, upper: iv.upper, limit, kind, n })
  if (decision.verdict === 'inconclusive')
    decision.neededRequests = proportionRequestsNeeded(k, n, limit, confidence)
  return { estimate: iv.estimate, interval: [iv.lower, iv.upper], n, ...decision }
}

function sign(kind: 'max' | 'min'): 1 | -1 {
  return kind === 'max' ? 1 : -1
}

// [better end, worse end] of an interval, oriented so that larger is worse.
function oriented(lower: number, upper: number, kind: 'max' | 'min'): [number, number] {
  return kind === 'max' ? [lower, upper] : [-upper, -lower]
}
