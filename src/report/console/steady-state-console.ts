/**
 * Rust's steady-state console block, printed after the result table when the result has a window.
 * Pure: reads the `steady_state` object of a result. Rust: print_steady_state (output/console.rs).
 */
import { pyFixed } from '../../metrics/py-number.ts'
import { center } from './console.ts'

const WIDTH = 47

const row = (label: string, value: string): string => `${label.padEnd(35)} ${value}`
const num = (o: Record<string, unknown>, key: string): number => {
  const v = o[key]
  return typeof v === 'number' ? v : 0
}

/** The block for a result's `steady_state` value; `''` when it is null or absent. */
export function formatSteadyStateSection(steadyState: unknown): string {
  if (steadyState === null || typeof steadyState !== 'object') return ''
  const ss = steadyState as Record<string, unknown>
  const w = (ss.window ?? {}) as Record<string, unknown>
  const lines: string[] = []
  if (typeof w.warning === 'string') lines.push(`Warning: ${w.warning}`)
  lines.push(center(' Steady-State Metrics ', '=', WIDTH))
  lines.push(
    row(
      'Concurrency threshold:',
      `>= ${String(num(w, 'threshold'))} * ${num(w, 'target_concurrency')} = ${num(w, 'threshold_abs')}`,
    ),
  )
  lines.push(
    row(
      'Window:',
      `${pyFixed(num(w, 'start_s'), 1)}s -> ${pyFixed(num(w, 'end_s'), 1)}s  (${pyFixed(num(w, 'duration_s'), 1)}s)`,
    ),
  )
  lines.push(row('Observed peak concurrency:', String(num(w, 'observed_peak'))))
  const started = num(w, 'requests_started_in_window')
  const total = num(w, 'requests_total')
  const pct = total > 0 ? (100 * started) / total : 0
  lines.push(row('Requests started in window:', `${started} / ${total} (${pyFixed(pct, 1)}%)`))
  lines.push(row('Requests completed in window:', String(num(w, 'requests_completed_in_window'))))
  lines.push('-'.repeat(WIDTH))
  lines.push(row('Request throughput (req/s):', pyFixed(num(ss, 'request_throughput'), 2)))
  lines.push(row('Output token throughput (tok/s):', pyFixed(num(ss, 'output_throughput'), 2)))
  lines.push(row('Input token throughput (tok/s):', pyFixed(num(ss, 'input_throughput'), 2)))
  lines.push(row('Total token throughput (tok/s):', pyFixed(num(ss, 'total_token_throughput'), 2)))
  const percentiles = Array.isArray(ss.percentiles_ttft_ms) ? (ss.percentiles_ttft_ms as number[][]) : []
  if (percentiles.length > 0 || num(ss, 'mean_ttft_ms') > 0) {
    lines.push('-'.repeat(WIDTH))
    lines.push(row('Mean TTFT (ms):', pyFixed(num(ss, 'mean_ttft_ms'), 2)))
    lines.push(row('Median TTFT (ms):', pyFixed(num(ss, 'median_ttft_ms'), 2)))
    for (const [p, ms] of percentiles) {
      lines.push(row(`P${Math.trunc(p ?? 0)} TTFT (ms):`, pyFixed(ms ?? 0, 2)))
    }
  }
  if (num(ss, 'mean_tpot_ms') > 0 || num(ss, 'median_tpot_ms') > 0) {
    lines.push('-'.repeat(WIDTH))
    lines.push(row('Mean TPOT (ms):', pyFixed(num(ss, 'mean_tpot_ms'), 2)))
    lines.push(row('Median TPOT (ms):', pyFixed(num(ss, 'median_tpot_ms'), 2)))
    lines.push(row('P90 TPOT (ms):', pyFixed(num(ss, 'p90_tpot_ms'), 2)))
    lines.push(row('P99 TPOT (ms):', pyFixed(num(ss, 'p99_tpot_ms'), 2)))
  }
  lines.push('='.repeat(WIDTH))
  return `${lines.join('\n')}\n`
}
