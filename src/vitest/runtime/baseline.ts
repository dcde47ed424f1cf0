import { compareSamples, type Direction } from '../../metrics/compare-distributions.ts'
import type { BaselineExpectation, ServeBenchResult, UpdateMode, VerdictCheck } from '../shared/meta.ts'
import { baselineFilePath, baselineFromResult, readBaseline, writeBaseline } from './baseline-store.ts'
import {
  isBenchResult,
  type LATENCY_METRICS,
  METRIC_LABELS,
  statisticOf,
  THROUGHPUT_UNITS,
} from './samples.ts'

/** Where a benchmark's baseline lives and how `-u` / CI treat it. */
export interface BaselineContext {
  /** Absolute path of the suite file. */
  file: string
  /** Full name inside the file: `describe > benchmark`. */
  name: string
  fingerprint: string
  update: UpdateMode
  baselineDir: string
  root: string
}

export interface BaselineOutcome {
  pass: boolean
  summary: string
  checks: VerdictCheck[]
  lines: string[]
}

export const DEFAULT_BASELINE_METRICS = [
  'mean_ttft_ms',
  'p99_ttft_ms',
  'mean_tpot_ms',
  'mean_itl_ms',
  'output_throughput',
]
/** A pooling run has end-to-end latencies only (no token stream, no start times to window). */
export const DEFAULT_POOLING_BASELINE_METRICS = ['mean_e2el_ms', 'p99_e2el_ms']
const DEFAULT_TOLERANCE = 0.1

/**
 * Snapshot semantics: write when missing (fail instead when updates are off, as in CI), rewrite
 * under `-u`, otherwise compare each metric's per-request distribution with the stored one.
 */
export function matchBaseline(
  result: ServeBenchResult,
  expectation: unknown,
  ctx: BaselineContext,
): BaselineOutcome {
  const opts = validate(expectation)
  const pooling = !isBenchResult(result)
  if (pooling && opts.metrics) {
    const bad = opts.metrics.filter((m) => !/_e2el_ms$/.test(m))
    if (bad.length > 0)
      throw new TypeError(
        `toMatchBaseline: a pooling run (${result.backend}) has end-to-end latencies only; compare <mean|median|std|pNN>_e2el_ms (got ${bad.map((b) => `'${b}'`).join(', ')})`,
      )
  }
  const metrics = opts.metrics ?? (pooling ? DEFAULT_POOLING_BASELINE_METRICS : DEFAULT_BASELINE_METRICS)
  const tolerance = opts.tolerance ?? DEFAULT_TOLERANCE
  const path = baselineFilePath(ctx.baselineDir, ctx.root, ctx.file)
  const stored = readBaseline(path, ctx.name)
  const fresh = (): BaselineOutcome => {
    writeBaseline(path, ctx.name, baselineFromResult(result, ctx.fingerprint))
    return { pass: true, summary: `Baseline written: '${ctx.name}' in ${path}`, checks: [], lines: [] }
  }
  if (ctx.update === 'all') return fresh()
  if (!stored) {
    if (ctx.update === 'none') {
      const summary = `Baseline missing: '${ctx.name}' has no baseline in ${path}; run with -u (outside CI) to record it and commit the file`
      return { pass: false, summary, checks: [], lines: [] }
    }
    return fresh()
  }
  if (stored.fingerprint !== ctx.fingerprint) {
    const summary = `Baseline stale: '${ctx.name}' was recorded with another configuration (fingerprint ${stored.fingerprint}, now ${ctx.fingerprint}); run with -u to re-record it`
    return { pass: false, summary, checks: [], lines: [] }
  }
  const current = baselineFromResult(result, ctx.fingerprint)
  const checks: VerdictCheck[] = []
  const lines: string[] = []
  const regressions: string[] = []
  for (const metric of metrics) {
    const plan = planOf(metric)!
    const before = stored.samples[plan.sample] ?? []
    const after = current.samples[plan.sample] ?? []
    if (before.length === 0 || after.length === 0) {
      checks.push({
        metric,
        actual: Number.NaN,
        limit: Number.NaN,
        unit: plan.unit,
        pass: false,
        verdict: 'fail',
        detail: 'no samples',
      })
      lines.push(`  ✗ ${metric}: no samples in the ${before.length === 0 ? 'baseline' : 'current run'}`)
      regressions.push(`${metric} has no samples`)
      continue
    }
    const c = compareSamples(before, after, plan.statistic, {
      direction: plan.direction,
      tolerance,
      ...(opts.alpha !== undefined ? { alpha: opts.alpha } : {}),
      ...(opts.test !== undefined ? { test: opts.test } : {}),
    })
    const evidence = `${pct(c.relative)} (95% CI ${pct(c.relativeCi[0])} … ${pct(c.relativeCi[1])}, p=${formatP(c.pValue)})`
    const detail = `${fmt(c.current, plan.unit)} vs baseline ${fmt(c.baseline, plan.unit)}: ${evidence}`
    checks.push({
      metric: plan.label,
      actual: c.current,
      limit: c.baseline,
      unit: plan.unit,
      pass: !c.regressed,
      verdict: c.regressed ? 'fail' : 'pass',
      interval: c.relativeCi,
      pValue: c.pValue,
      detail,
    })
    const note = c.regressed ? '' : c.pastTolerance ? ' — not significant' : ''
    lines.push(`  ${c.regressed ? '✗' : '✓'} ${plan.label} ${detail}${note}`)
    if (c.regressed) regressions.push(`${plan.label} ${evidence}`)
  }
  const tol = `${(tolerance * 100).toFixed(0)}% tolerance`
  const summary =
    regressions.length > 0
      ? `Baseline regression: ${regressions.join('; ')} past the ${tol}`
      : `Baseline matched: ${metrics.length} metric${metrics.length === 1 ? '' : 's'} within the ${tol} or not significant`
  return { pass: regressions.length === 0, summary, checks, lines }
}

interface Plan {
  label: string
  sample: string
  statistic: (xs: readonly number[]) => number
  direction: Direction
  unit: string
}

function planOf(metric: string): Plan | undefined {
  const m = /^(mean|median|std|min|max|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$/.exec(metric)
  if (m) {
    const statistic = statisticOf(m[1]!)
    const which = m[2] as (typeof LATENCY_METRICS)[number]
    if (statistic)
      return {
        label: `${m[1]} ${METRIC_LABELS[which]}`,
        sample: which,
        statistic,
        direction: 'lower-is-better',
        unit: 'ms',
      }
  }
  if (metric in THROUGHPUT_UNITS) {
    const unit = THROUGHPUT_UNITS[metric as keyof typeof THROUGHPUT_UNITS]
    const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length
    return {
      label: metric.replaceAll('_', ' '),
      sample: metric,
      statistic: mean,
      direction: 'higher-is-better',
      unit,
    }
  }
  return undefined
}

function validate(e: unknown): BaselineExpectation {
  if (typeof e !== 'object' || e === null)
    throw new TypeError('toMatchBaseline expects { metrics?, tolerance?, alpha?, test? }')
  const x = e as BaselineExpectation
  const unknown = Object.keys(x).filter((k) => !['metrics', 'tolerance', 'alpha', 'test'].includes(k))
  if (unknown.length > 0)
    throw new TypeError(
      `toMatchBaseline: unknown key '${unknown[0]}' (valid: metrics, tolerance, alpha, test)`,
    )
  if (x.metrics !== undefined) {
    if (!Array.isArray(x.metrics) || x.metrics.length === 0)
      throw new TypeError('toMatchBaseline: metrics must be a non-empty array of result keys')
    const bad = x.metrics.filter((m) => typeof m !== 'string' || !planOf(m))
    if (bad.length > 0) {
      throw new TypeError(
        `toMatchBaseline: cannot compare ${bad.map((b) => `'${String(b)}'`).join(', ')}; use <mean|median|std|pNN>_<ttft|tpot|itl|e2el>_ms or ${Object.keys(THROUGHPUT_UNITS).join(', ')}`,
      )
    }
  }
  if (
    x.tolerance !== undefined &&
    !(typeof x.tolerance === 'number' && x.tolerance >= 0 && x.tolerance < 10)
  ) {
    throw new TypeError(
      `toMatchBaseline: tolerance must be a relative change like 0.1 for 10% (got ${String(x.tolerance)})`,
    )
  }
  if (x.alpha !== undefined && !(typeof x.alpha === 'number' && x.alpha > 0 && x.alpha < 1)) {
    throw new TypeError(`toMatchBaseline: alpha must be in (0, 1) (got ${String(x.alpha)})`)
  }
  if (x.test !== undefined && !['both', 'bootstrap', 'mann-whitney'].includes(x.test)) {
    throw new TypeError(
      `toMatchBaseline: test must be 'both', 'bootstrap' or 'mann-whitney' (got ${String(x.test)})`,
    )
  }
  return x
}

function pct(x: number): string {
  if (!Number.isFinite(x)) return 'n/a'
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`
}

function formatP(p: number): string {
  return p < 1e-4 ? p.toExponential(1) : p.toFixed(4)
}

function fmt(v: number, unit: string): string {
  return unit === 'ms' ? `${v.toFixed(1)} ms` : `${v.toFixed(2)} ${unit}`
}
