/**
 * Sweeps over `--max-concurrency` or `--request-rate`: banners, the summary table and the combined
 * JSON. Pure. Rust: sweep.rs.
 */
import { percentileWord } from '../../metrics/calculate.ts'
import { pyFixed } from '../../metrics/py-number.ts'
import { center } from '../console/console.ts'
import { resultForFile } from './result-json.ts'
import type { AnyBenchResult } from './run-result.ts'

export type SweepParameter = 'max_concurrency' | 'request_rate'

/** One point of a sweep: the value swept and the run's result. */
export interface SweepPoint {
  value: number
  result: AnyBenchResult
}

/** One summary column: its header, where its value is in a result, and its minimum width. */
export interface SweepColumn {
  header: string
  key: string
  /** Read from `result.steady_state` instead of the top level. */
  steadyState?: boolean
  minWidth: number
}

const PARAM_NAMES: Record<SweepParameter, string> = {
  max_concurrency: 'Max Concurrency',
  request_rate: 'Request Rate',
}

/** The columns of the summary table: the fixed set, then TTFT and TPOT for each extra percentile. */
export function sweepColumns(percentiles: readonly number[]): SweepColumn[] {
  const columns: SweepColumn[] = [
    { header: 'Req/s', key: 'request_throughput', minWidth: 10 },
    { header: 'Inputs/s', key: 'input_sequence_throughput', minWidth: 10 },
    { header: 'Tok/s', key: 'output_throughput', minWidth: 10 },
    { header: 'Total tok/s', key: 'total_token_throughput', minWidth: 12 },
    { header: 'SS req/s', key: 'request_throughput', steadyState: true, minWidth: 10 },
    { header: 'SS out tok/s', key: 'output_throughput', steadyState: true, minWidth: 12 },
    { header: 'P50 TTFT(ms)', key: 'median_ttft_ms', minWidth: 12 },
    { header: 'P50 TPOT(ms)', key: 'median_tpot_ms', minWidth: 12 },
    { header: 'P90 TTFT(ms)', key: 'p90_ttft_ms', minWidth: 12 },
    { header: 'P90 TPOT(ms)', key: 'p90_tpot_ms', minWidth: 12 },
  ]
  for (const p of [...new Set(percentiles)]) {
    if (p === 50 || p === 90) continue
    const word = percentileWord(p)
    columns.push(
      { header: `P${word} TTFT(ms)`, key: `p${word}_ttft_ms`, minWidth: 12 },
      { header: `P${word} TPOT(ms)`, key: `p${word}_tpot_ms`, minWidth: 12 },
    )
  }
  return columns
}

/** The row label of a point: `concurrency=8`, `rate=2.5`, `rate=inf`. */
export function sweepLabel(parameter: SweepParameter, value: number): string {
  if (parameter === 'max_concurrency') return `concurrency=${value}`
  return `rate=${Number.isFinite(value) ? String(value) : 'inf'}`
}

function cell(result: Record<string, unknown>, column: SweepColumn): string {
  const source = column.steadyState ? result.steady_state : result
  const value =
    source !== null && typeof source === 'object'
      ? (source as Record<string, unknown>)[column.key]
      : undefined
  return typeof value === 'number' ? pyFixed(value, 2) : '-'
}

/** One summary row (exported for tests). */
export function sweepRow(
  label: string,
  result: Record<string, unknown>,
  columns: readonly SweepColumn[],
  paramWidth = 20,
): string {
  const cells = columns.map((c) => cell(result, c).padStart(Math.max(c.minWidth, c.header.length)))
  return `${label.padEnd(paramWidth)} ${cells.join(' ')}`
}

/** The `Sweep Summary` table and the best-throughput line. */
export function formatSweepSummary(
  parameter: SweepParameter,
  points: readonly SweepPoint[],
  percentiles: readonly number[],
): string {
  const name = PARAM_NAMES[parameter]
  const columns = sweepColumns(percentiles)
  const paramWidth = Math.max(name.length, 20)
  const widths = columns.map((c) => Math.max(c.minWidth, c.header.length))
  const total = paramWidth + widths.reduce((a, b) => a + b, 0) + columns.length
  const lines = [center(' Sweep Summary ', '=', total)]
  lines.push(`${name.padEnd(paramWidth)} ${columns.map((c, i) => c.header.padStart(widths[i]!)).join(' ')}`)
  lines.push('-'.repeat(total))
  for (const point of points) {
    lines.push(sweepRow(sweepLabel(parameter, point.value), point.result, columns, paramWidth))
  }
  lines.push('='.repeat(total))
  const best = points.reduce<SweepPoint | undefined>(
    (acc, p) => (!acc || p.result.request_throughput > acc.result.request_throughput ? p : acc),
    undefined,
  )
  if (best) {
    lines.push(
      `Best throughput: ${pyFixed(best.result.request_throughput, 2)} req/s at ${sweepLabel(parameter, best.value)}`,
    )
  }
  return `${lines.join('\n')}\n`
}

/** The banner before a sweep and the one before each point. */
export function sweepBanner(parameter: SweepParameter, values: readonly number[]): string {
  const title = parameter === 'max_concurrency' ? ' Concurrency Sweep ' : ' Request Rate Sweep '
  const flag = parameter === 'max_concurrency' ? '--max-concurrency' : '--request-rate'
  const list = values.map((v) => (Number.isFinite(v) ? String(v) : 'inf')).join(', ')
  return `${center(title, '=', 70)}\nSweeping ${flag} over ${values.length} values: [${list}]\n`
}
export function sweepPointBanner(parameter: SweepParameter, value: number, i: number, n: number): string {
  const shown = Number.isFinite(value) ? String(value) : 'inf'
  return `${center(` Run ${i}/${n}: ${parameter}=${shown} `, '-', 70)}\n`
}

/** The combined sweep JSON: what was swept, a summary row per point, and each point's result. */
export function sweepJson(parameter: SweepParameter, points: readonly SweepPoint[]): Record<string, unknown> {
  const first = points[0]?.result
  return {
    mode: 'sweep',
    date: first?.date ?? '',
    backend: first?.backend ?? '',
    model_id: first?.model_id ?? '',
    sweep_parameter: parameter,
    sweep_values: points.map((p) => (Number.isFinite(p.value) ? p.value : 'inf')),
    points: points.map((p) => resultForFile(p.result, false)),
  }
}
