/**
 * How a checked number reads, in a matcher's message, on the console, in a GitHub annotation and in
 * JUnit XML: `✗ p99 TTFT 412.3 ms > 300 ms (95% CI 380.1 … 450.2 ms)`. Pure.
 */
import type { VerdictCheck } from './run-summary.ts'
import { MARKS } from './verdict-marks.ts'

/** One line of a matcher's message: mark, check, interval, and what decides an inconclusive one. */
export function formatLine(c: VerdictCheck, confidence = 0.95, rounds = 1): string {
  // A baseline check's detail is its whole line, mark included.
  if (c.detail && c.verdict !== 'invalid') return c.detail
  const parts = [`${MARKS[c.verdict]} ${formatCheck(c)}`]
  if (c.interval && c.verdict !== 'invalid') {
    // JSON (a summary file, a blob report) holds an infinite end as null: lower −∞, upper ∞.
    const [lo, hi] = c.interval.map((v, i) =>
      formatBound(v ?? (i === 0 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY), c.unit),
    )
    const unit = c.unit === 'fraction' || c.unit === 'count' ? '' : ` ${c.unit}`
    parts.push(`(${Number((confidence * 100).toFixed(1))}% CI ${lo} … ${hi}${unit})`)
  }
  if (c.verdict === 'inconclusive') {
    const after = rounds > 1 ? ` after ${rounds} rounds` : ''
    const needed =
      c.neededRequests !== undefined && Number.isFinite(c.neededRequests)
        ? `; about ${formatCount(c.neededRequests)} requests would decide it`
        : '; more requests would not decide it (the estimate sits on the bound)'
    parts.push(`— inconclusive${after}${c.neededRequests !== undefined ? needed : ''}`)
  }
  return parts.join(' ')
}

/** `p99 TTFT 412.3 ms > 300 ms`, `error rate 20.0% > 1.0%`, `request throughput 9.80 req/s < 10 req/s`. */
export function formatCheck(c: VerdictCheck): string {
  const lower = c.unit === 'req/s' || c.unit === 'tok/s' || c.metric === 'goodput'
  // The point estimate's side of the bound, whatever the verdict made of it.
  const within = lower ? c.actual >= c.limit : c.actual <= c.limit
  const op = within ? (lower ? '≥' : '≤') : lower ? '<' : '>'
  return `${c.metric} ${formatValue(c.actual, c.unit)} ${op} ${formatLimit(c.limit, c.unit)}`
}

// An interval end without its unit (the line gives it once).
function formatBound(v: number, unit: string): string {
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞'
  if (unit === 'fraction') return `${(v * 100).toFixed(1)}%`
  if (unit === 'count') return String(v)
  return unit === 'ms' ? v.toFixed(1) : v.toFixed(2)
}

function formatCount(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : String(Math.ceil(n))
}

export function formatValue(v: number, unit: string): string {
  if (Number.isNaN(v)) return 'n/a (no successful requests)'
  if (unit === 'fraction') return `${(v * 100).toFixed(1)}%`
  if (unit === 'count') return String(v)
  if (unit === 'ms') return `${v.toFixed(1)} ms`
  return `${v.toFixed(2)} ${unit}`
}

// Limits as the user wrote them: `300 ms`, `1%`, `10 req/s`.
function formatLimit(v: number, unit: string): string {
  if (unit === 'fraction') return `${Number((v * 100).toPrecision(6))}%`
  if (unit === 'count') return String(v)
  return `${v} ${unit}`
}
