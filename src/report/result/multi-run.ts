/**
 * `--num-runs N`: per-metric mean, population std, min, max and coefficient of variation over the
 * runs' results, the summary table and the combined JSON. Pure. Rust: multi_run.rs.
 */
import { mean, std } from '../../metrics/percentile.ts'
import { pyFixed } from '../../metrics/py-number.ts'
import { center } from '../console/console.ts'
import { resultForFile } from './result-json.ts'
import type { AnyBenchResult } from './run-result.ts'

/** Statistics of one metric over the runs that have it. */
export interface RunStats {
  /** Runs that reported the metric. */
  present: number
  mean: number
  /** Population standard deviation. */
  std: number
  min: number
  max: number
  /** `std / mean × 100`; 0 when the mean is 0. */
  cvPct: number
}

/** The metrics summarised, in table order (Rust's list). */
export const MULTI_RUN_METRICS = [
  'request_throughput',
  // Pooling runs only (generation results have no such key, so no row).
  'input_sequence_throughput',
  'output_throughput',
  'total_token_throughput',
  'max_output_tokens_per_s',
  'mean_ttft_ms',
  'median_ttft_ms',
  'p99_ttft_ms',
  'mean_tpot_ms',
  'median_tpot_ms',
  'p99_tpot_ms',
  'mean_itl_ms',
  'mean_e2el_ms',
  'p99_e2el_ms',
  'completed',
  'failed',
  'duration',
] as const

/** Steady-state fields summarised over the runs that found a window. */
export const MULTI_RUN_STEADY_STATE_METRICS = [
  'request_throughput',
  'output_throughput',
  'input_throughput',
  'total_token_throughput',
  'mean_ttft_ms',
  'median_ttft_ms',
  'mean_tpot_ms',
  'median_tpot_ms',
  'p90_tpot_ms',
  'p99_tpot_ms',
] as const

/** Rust compute_stats_opt: statistics over the values present; none present gives zeros. */
export function computeRunStats(values: ReadonlyArray<number | undefined | null>): RunStats {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v))
  if (xs.length === 0) return { present: 0, mean: 0, std: 0, min: 0, max: 0, cvPct: 0 }
  const m = mean(xs)
  const s = std(xs)
  return {
    present: xs.length,
    mean: m,
    std: s,
    min: Math.min(...xs),
    max: Math.max(...xs),
    cvPct: m !== 0 ? (s / m) * 100 : 0,
  }
}

/** Per-metric statistics over the results; metrics that no run reported are left out. */
export interface MultiRunSummary {
  numRuns: number
  metrics: Record<string, RunStats>
  /** Over the runs with a steady-state window; null when no run had one (or none looked for one). */
  steadyState: Record<string, RunStats> | null
  /** Runs that had a window. */
  steadyStateRuns: number
  /** Whether any run looked for a window (its result has a `steady_state` key). */
  steadyStateGated: boolean
}

export function summariseRuns(results: readonly AnyBenchResult[]): MultiRunSummary {
  const pick = (r: Record<string, unknown>, key: string): number | undefined =>
    typeof r[key] === 'number' ? (r[key] as number) : undefined
  const metrics: Record<string, RunStats> = {}
  for (const key of MULTI_RUN_METRICS) {
    const stats = computeRunStats(results.map((r) => pick(r, key)))
    if (stats.present > 0) metrics[key] = stats
  }
  const windows = results
    .map((r) => r.steady_state)
    .filter((s): s is Record<string, unknown> => s !== null && typeof s === 'object')
  let steadyState: Record<string, RunStats> | null = null
  if (windows.length > 0) {
    steadyState = {}
    for (const key of MULTI_RUN_STEADY_STATE_METRICS) {
      steadyState[key] = computeRunStats(windows.map((w) => pick(w, key)))
    }
  }
  return {
    numRuns: results.length,
    metrics,
    steadyState,
    steadyStateRuns: windows.length,
    steadyStateGated: results.some((r) => 'steady_state' in r),
  }
}

/** Rust's number cell: `0`, whole numbers as integers, else 2 decimals. */
export function formatStatValue(value: number): string {
  if (value === 0) return '0'
  if (Number.isInteger(value) && Math.abs(value) < 1e12) return String(value)
  return pyFixed(value, 2)
}

function statRow(label: string, s: RunStats): string {
  const cells = [s.mean, s.std, s.min, s.max].map((v) => formatStatValue(v).padStart(10))
  return `${label.padEnd(35)} ${cells.join(' ')} ${`${pyFixed(s.cvPct, 1)}%`.padStart(8)}`
}

const HEADER = `${'Metric'.padEnd(35)} ${['Mean', 'Std', 'Min', 'Max'].map((h) => h.padStart(10)).join(' ')} ${'CV'.padStart(8)}`

/** The summary block printed after the runs. */
export function formatMultiRunSummary(summary: MultiRunSummary): string {
  const lines = [center(` Multi-Run Summary (${summary.numRuns} runs) `, '=', 80), HEADER, '-'.repeat(80)]
  for (const [key, stats] of Object.entries(summary.metrics)) lines.push(statRow(key, stats))
  lines.push('='.repeat(80))
  const throughput = summary.metrics.request_throughput
  if (throughput && throughput.mean > 0) {
    lines.push(`Throughput CV: ${pyFixed(throughput.cvPct, 1)}% (lower = more stable across runs)`)
  }
  if (summary.steadyStateGated) {
    if (!summary.steadyState) lines.push('Steady-state: no runs had a valid window')
    else {
      const k = summary.steadyStateRuns
      lines.push(center(` Steady-State Summary (${k}/${summary.numRuns} runs) `, '=', 80))
      if (k < summary.numRuns) lines.push(`Note: ${summary.numRuns - k} run(s) had no steady-state window`)
      lines.push(HEADER, '-'.repeat(80))
      for (const [key, stats] of Object.entries(summary.steadyState)) lines.push(statRow(`SS ${key}`, stats))
      lines.push('='.repeat(80))
    }
  }
  return `${lines.join('\n')}\n`
}

/** The banner before the runs and the one before each run. */
export function multiRunBanner(numRuns: number): string {
  return `${center(` Multi-Run Benchmark (${numRuns} runs) `, '=', 70)}\n`
}
export function multiRunRunBanner(i: number, numRuns: number): string {
  return `${center(` Run ${i}/${numRuns} `, '-', 70)}\n`
}

const statsJson = (s: RunStats): Record<string, number> => ({
  present: s.present,
  mean: s.mean,
  std: s.std,
  min: s.min,
  max: s.max,
  cv_pct: s.cvPct,
})

/** The combined multi-run JSON: the summary, then each run's result without per-request arrays. */
export function multiRunJson(
  results: readonly AnyBenchResult[],
  summary: MultiRunSummary,
): Record<string, unknown> {
  const first = results[0]
  return {
    mode: 'multi_run',
    date: first?.date ?? '',
    backend: first?.backend ?? '',
    model_id: first?.model_id ?? '',
    num_runs: summary.numRuns,
    metrics: Object.fromEntries(Object.entries(summary.metrics).map(([k, s]) => [k, statsJson(s)])),
    steady_state_runs: summary.steadyStateRuns,
    steady_state: summary.steadyState
      ? Object.fromEntries(Object.entries(summary.steadyState).map(([k, s]) => [k, statsJson(s)]))
      : null,
    runs: results.map((r) => resultForFile(r, false)),
  }
}
