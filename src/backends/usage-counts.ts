/**
 * The token counts a server reports in `usage`, checked before they are used: a negative, fractional,
 * non-numeric or absurd count would go straight into the run's totals and throughputs
 * (`prompt_tokens: -5` made a negative input total, `completion_tokens: 1e300` an output
 * throughput of 1.8e302). Such a request fails with the count named in its error.
 */

/** Most tokens one count may report: a hundred times the longest context window served today. */
export const MAX_USAGE_TOKENS = 100_000_000

/** What reads a count: the count, absent (no field, or `null`), or the error text of the request. */
export type UsageCount =
  | { kind: 'count'; value: number }
  | { kind: 'absent' }
  | { kind: 'impossible'; error: string }

const ABSENT: UsageCount = { kind: 'absent' }

/** `usage.<field>` checked: a whole number from 0 to {@link MAX_USAGE_TOKENS}, or absent. */
export function readUsageCount(field: string, value: unknown): UsageCount {
  if (value === undefined || value === null) return ABSENT
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_USAGE_TOKENS) {
    return { kind: 'count', value }
  }
  return { kind: 'impossible', error: impossibleUsageMessage(field, value) }
}

/** The error text of a request whose server reported an impossible count. */
export function impossibleUsageMessage(field: string, value: unknown): string {
  const shown = typeof value === 'number' ? String(value) : JSON.stringify(value)?.slice(0, 80)
  return (
    `Server reported an impossible usage.${field} (${shown}): a count must be a whole number ` +
    `from 0 to ${MAX_USAGE_TOKENS}; the request is counted as failed`
  )
}
