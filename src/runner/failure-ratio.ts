export { DEFAULT_MAX_FAILURE_RATIO } from '../config/defaults.ts'

/** How a run's failures compare with a threshold. */
export interface FailureRatio {
  failed: number
  /** Requests sent: completed + failed. */
  sent: number
  /** `failed / sent`; 0 when nothing was sent. */
  ratio: number
  threshold: number
  /** True when `ratio` is strictly above `threshold`. */
  exceeded: boolean
}

/** Compares the failed fraction of a run with `threshold` (a fraction in [0, 1]). */
export function checkFailureRatio(
  counts: { completed: number; failed: number },
  threshold: number,
): FailureRatio {
  const sent = counts.completed + counts.failed
  const ratio = sent === 0 ? 0 : counts.failed / sent
  return { failed: counts.failed, sent, ratio, threshold, exceeded: ratio > threshold }
}

/** `12 of 100 requests failed (12.0%), above the failure ratio limit 0.05 (5%)` */
export function describeFailureRatio(check: FailureRatio, limitName = 'the failure ratio limit'): string {
  return `${check.failed} of ${check.sent} requests failed (${percent(check.ratio)}), above ${limitName} ${check.threshold} (${percent(check.threshold)})`
}

function percent(fraction: number): string {
  const value = fraction * 100
  return `${Number.isInteger(value) ? value : value.toFixed(1)}%`
}
