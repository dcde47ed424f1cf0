/**
 * `servebench compare A B`: a side-by-side diff of two saved results with direction-aware marks
 * (lower is better for latencies, higher for throughput). Pure: text in, text out.
 * Rust: compare.rs.
 */
import { pyFixed } from '../../metrics/py-number.ts'
import { center } from '../console/console.ts'
import { parsePythonJson } from '../result/py-json.ts'

/** One compared metric: its key and whether a smaller value is an improvement. */
export interface CompareMetric {
  key: string
  lowerIsBetter: boolean
}

const latency = (family: string): CompareMetric[] =>
  ['mean', 'median', 'p99'].map((stat) => ({ key: `${stat}_${family}_ms`, lowerIsBetter: true }))

/** Rust's order. */
export const COMPARE_METRICS: readonly CompareMetric[] = [
  { key: 'request_throughput', lowerIsBetter: false },
  { key: 'output_throughput', lowerIsBetter: false },
  { key: 'total_token_throughput', lowerIsBetter: false },
  { key: 'max_output_tokens_per_s', lowerIsBetter: false },
  { key: 'max_concurrent_requests', lowerIsBetter: false },
  ...latency('ttft'),
  ...latency('tpot'),
  ...latency('itl'),
  ...latency('e2el'),
  { key: 'completed', lowerIsBetter: false },
  { key: 'failed', lowerIsBetter: true },
  { key: 'duration', lowerIsBetter: true },
]

const STEADY_STATE_METRICS: ReadonlyArray<CompareMetric & { label: string }> = [
  { key: 'request_throughput', label: 'SS request_throughput', lowerIsBetter: false },
  { key: 'output_throughput', label: 'SS output_throughput', lowerIsBetter: false },
  { key: 'input_throughput', label: 'SS input_throughput', lowerIsBetter: false },
  { key: 'total_token_throughput', label: 'SS total_token_throughput', lowerIsBetter: false },
  { key: 'mean_ttft_ms', label: 'SS mean_ttft_ms', lowerIsBetter: true },
  { key: 'median_ttft_ms', label: 'SS median_ttft_ms', lowerIsBetter: true },
  { key: 'mean_tpot_ms', label: 'SS mean_tpot_ms', lowerIsBetter: true },
  { key: 'median_tpot_ms', label: 'SS median_tpot_ms', lowerIsBetter: true },
  { key: 'p90_tpot_ms', label: 'SS p90_tpot_ms', lowerIsBetter: true },
  { key: 'p99_tpot_ms', label: 'SS p99_tpot_ms', lowerIsBetter: true },
]

/** A compared file: where it came from and its parsed result. */
export interface CompareInput {
  path: string
  result: Record<string, unknown>
}

export interface CompareOptions {
  /** ANSI colours on the marks and changes (the CLI turns them on for a TTY without `NO_COLOR`). */
  color: boolean
}

/**
 * Reads a result file's text: one JSON object (compact or pretty-printed) or JSON Lines, whose last
 * non-empty line is used. Python's bare `Infinity`/`NaN` tokens are read as those numbers. Throws an `Error`
 * saying what is wrong.
 */
export function parseResultText(text: string): Record<string, unknown> {
  const attempts = [
    text,
    text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .at(-1) ?? '',
  ]
  let lastError: unknown
  for (const attempt of attempts) {
    try {
      const value = parsePythonJson(attempt)
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        return value as Record<string, unknown>
      }
      lastError = new Error('is not a JSON object')
    } catch (error) {
      lastError = error
    }
  }
  throw new Error(`is not a result file (JSON object or JSON Lines): ${(lastError as Error).message}`)
}

/** A number as Rust's compare prints it: integers when whole (below 1e12), else 2 decimals. */
function formatValue(value: number): string {
  return Number.isInteger(value) && Math.abs(value) < 1e12 ? String(value) : pyFixed(value, 2)
}

function formatDelta(delta: number): string {
  const text = formatValue(Math.abs(delta))
  return `${delta < 0 ? '-' : '+'}${text}`
}

const ANSI = { green: '\u001b[32m', red: '\u001b[31m', reset: '\u001b[0m' }

/** One diff row; exported for tests. `+` is an improvement, `-` a regression, ` ` no change. */
export function compareRow(
  label: string,
  a: number,
  b: number,
  lowerIsBetter: boolean,
  color: boolean,
): string {
  const delta = b - a
  let pct: string
  if (Math.abs(a) > 1e-10) pct = `${(delta / a) * 100 >= 0 ? '+' : ''}${pyFixed((delta / a) * 100, 1)}%`
  else pct = Math.abs(delta) > 1e-10 ? 'inf%' : '+0.0%'
  let mark = ' '
  if (Math.abs(delta) >= 1e-10) mark = (lowerIsBetter ? delta < 0 : delta > 0) ? '+' : '-'
  const change = pct.padStart(8)
  const paint = (text: string): string =>
    !color || mark === ' ' ? text : `${mark === '+' ? ANSI.green : ANSI.red}${text}${ANSI.reset}`
  return `${label.padEnd(35)} ${formatValue(a).padStart(12)} ${formatValue(b).padStart(12)} ${formatDelta(delta).padStart(10)} ${paint(change)} ${paint(mark)}`
}

const num = (o: unknown, key: string): number | undefined => {
  const v = o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

/** The comparison block: the two files, one row per metric present in both, then steady state. */
export function formatComparison(a: CompareInput, b: CompareInput, options: CompareOptions): string {
  const describe = (label: string, input: CompareInput): string =>
    `  ${label}: ${input.path} (model: ${String(input.result.model_id ?? '?')}, date: ${String(input.result.date ?? '?')})`
  const lines = [center(' Benchmark Comparison ', '=', 90), describe('A', a), describe('B', b)]
  const header = `${'Metric'.padEnd(35)} ${'A'.padStart(12)} ${'B'.padStart(12)} ${'Delta'.padStart(10)} ${'Change'.padStart(8)}`
  lines.push(header, '-'.repeat(90))
  for (const metric of COMPARE_METRICS) {
    const va = num(a.result, metric.key)
    const vb = num(b.result, metric.key)
    if (va === undefined || vb === undefined) continue
    lines.push(compareRow(metric.key, va, vb, metric.lowerIsBetter, options.color))
  }
  lines.push(center(' Steady-State Comparison ', '=', 70))
  const ssA = a.result.steady_state
  const ssB = b.result.steady_state
  if (!ssA || !ssB || typeof ssA !== 'object' || typeof ssB !== 'object') {
    lines.push('N/A \u2014 one or both runs have no steady-state window')
  } else {
    for (const metric of STEADY_STATE_METRICS) {
      const va = num(ssA, metric.key)
      const vb = num(ssB, metric.key)
      if (va === undefined || vb === undefined) lines.push(`${metric.label.padEnd(35)} N/A`)
      else lines.push(compareRow(metric.label, va, vb, metric.lowerIsBetter, options.color))
    }
  }
  lines.push('='.repeat(90))
  lines.push('Legend: + = improvement, - = regression (relative to A \u2192 B)')
  return `${lines.join('\n')}\n`
}
