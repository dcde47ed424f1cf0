/**
 * `servebench compare --fail-on <metric>:<+|-><change>[%]`: thresholds on the change from result A
 * to result B, judged after the diff. Pure: parse, judge, render; the CLI sets the exit code.
 */

/** One parsed `--fail-on` threshold. */
export interface FailOnThreshold {
  /** The flag value as written, e.g. `p99_ttft_ms:+10%`. */
  spec: string
  /** A numeric result key, e.g. `p99_ttft_ms`. */
  metric: string
  /** `+`: B may rise at most `change` above A; `-`: B may fall at most `change` below A. */
  direction: '+' | '-'
  /** The tolerated change: a fraction of A when `relative`, else in the metric's own unit. */
  change: number
  relative: boolean
}

/** A threshold judged on two results. */
export interface FailOnOutcome {
  threshold: FailOnThreshold
  a: number
  b: number
  crossed: boolean
}

const SPEC = /^([A-Za-z0-9_.]+):([+-])(\d+(?:\.\d+)?|\.\d+)(%?)$/

/**
 * Parses one `--fail-on` value; returns the problem in flag words when it is malformed. `+10%`
 * fails when B is more than 10 % above A, `-5%` when it is more than 5 % below, `+20` when it is
 * more than 20 (in the metric's unit) above.
 */
export function parseFailOn(spec: string): FailOnThreshold | { error: string } {
  const m = SPEC.exec(spec.trim())
  if (!m) {
    return {
      error: `must be <metric>:<+|-><change>[%], such as p99_ttft_ms:+10% or request_throughput:-5% (got "${spec}")`,
    }
  }
  const value = Number(m[3])
  return {
    spec: spec.trim(),
    metric: m[1]!,
    direction: m[2] as '+' | '-',
    change: m[4] === '%' ? value / 100 : value,
    relative: m[4] === '%',
  }
}

/** A result value as a number: Python writes `inf` and `nan` as strings; anything else is undefined. */
export function numericValue(value: unknown): number | undefined {
  if (typeof value === 'number') return value
  if (value === 'inf') return Number.POSITIVE_INFINITY
  if (value === '-inf') return Number.NEGATIVE_INFINITY
  if (value === 'nan') return Number.NaN
  return undefined
}

/** Judges a threshold on A's and B's values. A NaN on either side cannot be judged: it counts as crossed. */
export function judgeFailOn(threshold: FailOnThreshold, a: number, b: number): FailOnOutcome {
  const allowed = threshold.relative ? Math.abs(a) * threshold.change : threshold.change
  const crossed =
    Number.isNaN(a) || Number.isNaN(b) || (threshold.direction === '+' ? b - a > allowed : a - b > allowed)
  return { threshold, a, b, crossed }
}

/** `✗ p99_ttft_ms:+10%  120 → 150 (+25.0%): crossed`, one line per threshold. */
export function renderFailOn(outcomes: readonly FailOnOutcome[]): string {
  const lines = outcomes.map(({ threshold, a, b, crossed }) => {
    const delta = b - a
    const pct =
      a === 0
        ? delta === 0
          ? '+0.0%'
          : 'inf%'
        : `${delta >= 0 ? '+' : ''}${((delta / Math.abs(a)) * 100).toFixed(1)}%`
    return `${crossed ? '✗' : '✓'} ${threshold.spec}  ${fmt(a)} → ${fmt(b)} (${pct}): ${crossed ? 'crossed' : 'within'}`
  })
  return `${['fail-on:', ...lines.map((l) => `  ${l}`)].join('\n')}\n`
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v)
  return Number.isInteger(v) ? String(v) : v.toFixed(2)
}
