import { type BlockedRun, blockBootstrapChange, type ChangeEstimate } from '../../metrics/block-bootstrap.ts'
import { checkPasses, decideChange, type InconclusivePolicy } from '../../metrics/decide.ts'
import { bufferStatistic, quantileLevel } from '../../metrics/fast-statistic.ts'
import { minSamplesForUpperBound } from '../../metrics/quantile-interval.ts'
import {
  isBenchResult,
  type LATENCY_METRICS,
  METRIC_LABELS,
  THROUGHPUT_UNITS,
} from '../../metrics/result-samples.ts'
import { windowRuns } from '../../metrics/window-throughput.ts'
import type {
  BaselineExpectation,
  ServeBenchResult,
  UpdateMode,
  VerdictCheck,
  VerdictValue,
} from '../shared/meta.ts'
import { formatChange, formatNeeded } from './baseline-format.ts'
import {
  type BaselineRecord,
  type BaselineRun,
  baselineFilePath,
  baselineFromResults,
  baselineRun,
  readBaseline,
  writeBaseline,
} from './baseline-store.ts'
import { type BaselineProvenance, describeChanges } from './provenance.ts'

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
  /** Where this run came from; stored when writing, compared (as notes) when reading. */
  provenance?: BaselineProvenance
  /** The workload options behind the fingerprint; stored, and diffed when the baseline is stale. */
  workload?: Record<string, unknown>
  /** More runs of the same configuration to store with `result` when writing (k-run baselines). */
  recordRuns?: ServeBenchResult[]
  /** What an inconclusive check does to the assertion. @default 'default' */
  policy?: InconclusivePolicy
}

export interface BaselineOutcome {
  pass: boolean
  /** The worst check's verdict (`fail` > `inconclusive` > `pass`); `fail` for a missing or stale baseline. */
  verdict: VerdictValue
  summary: string
  checks: VerdictCheck[]
  lines: string[]
  /** Differences in provenance between the baseline and this run: notes, not failures. */
  notes: string[]
}

/** An outcome without checks: a baseline written, missing, outdated or stale. */
export function bareOutcome(pass: boolean, summary: string): BaselineOutcome {
  return { pass, verdict: pass ? 'pass' : 'fail', summary, checks: [], lines: [], notes: [] }
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
const DEFAULT_ALPHA = 0.05
const RESAMPLES = 1000

/**
 * Snapshot semantics: write when missing (fail instead when updates are off, as in CI), rewrite
 * under `-u`, otherwise compare each metric with the stored runs: per-request metrics by a block
 * bootstrap of the metric's own statistic, throughputs by the windows of the steady part.
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
  const bare = bareOutcome
  const failed = (summary: string): BaselineOutcome => bare(false, summary)
  const fresh = (): BaselineOutcome => {
    const runs = [result, ...(ctx.recordRuns ?? [])]
    writeBaseline(path, ctx.name, baselineFromResults(runs, ctx.fingerprint, ctx.provenance, ctx.workload))
    const what = runs.length === 1 ? '' : ` (${runs.length} runs)`
    return bare(true, `Baseline written: '${ctx.name}'${what} in ${path}`)
  }
  if (ctx.update === 'all') return fresh()
  if (stored.status === 'outdated')
    return failed(
      `Baseline outdated: ${path} was written by an older servebench (baseline file version ${stored.version}); rerecord it with -u and commit the file`,
    )
  if (stored.status === 'missing') {
    if (ctx.update === 'none')
      return failed(
        `Baseline missing: '${ctx.name}' has no baseline in ${path}; run with -u (outside CI) to record it and commit the file`,
      )
    return fresh()
  }
  const record = stored.record
  if (record.fingerprint !== ctx.fingerprint) return failed(staleSummary(ctx, record))

  const current = baselineRun(result)
  const checks = metrics.map((metric) =>
    compareMetric(metric, record.runs, current, tolerance, opts.alpha ?? DEFAULT_ALPHA, ctx.policy),
  )
  const notes =
    ctx.provenance && record.provenance
      ? describeChanges(record.provenance, ctx.provenance).map((c) => `provenance changed: ${c}`)
      : []
  const lines = [...checks.map((c) => `  ${c.detail}`), ...notes.map((n) => `  note: ${n}`)]
  const verdict: VerdictValue = checks.some((c) => c.verdict === 'fail')
    ? 'fail'
    : checks.some((c) => c.verdict === 'inconclusive')
      ? 'inconclusive'
      : 'pass'
  return {
    pass: checks.every((c) => c.pass),
    verdict,
    summary: summarise(checks, tolerance, opts.alpha ?? DEFAULT_ALPHA),
    checks,
    lines,
    notes,
  }
}

/** The labels of the metrics `toMatchBaseline(expectation)` compares for this result (`mean TTFT`, …). */
export function baselineLabels(result: ServeBenchResult, expectation: unknown): string[] {
  const opts = validate(expectation)
  const metrics =
    opts.metrics ?? (isBenchResult(result) ? DEFAULT_BASELINE_METRICS : DEFAULT_POOLING_BASELINE_METRICS)
  return metrics.map((m) => planOf(m)!.label)
}

interface Plan {
  label: string
  /** Latency sample key, or throughput key for windows. */
  sample: string
  /** Statistic name of `fast-statistic.ts`. */
  statistic: string
  kind: 'latency' | 'throughput'
  direction: 'lower-is-better' | 'higher-is-better'
  unit: string
}

function compareMetric(
  metric: string,
  baseline: readonly BaselineRun[],
  current: BaselineRun,
  tolerance: number,
  alpha: number,
  policy: InconclusivePolicy | undefined,
): VerdictCheck {
  const plan = planOf(metric)!
  const side = (runs: readonly BaselineRun[]): BlockedRun[] =>
    plan.kind === 'throughput'
      ? windowRuns(runs.map((r) => r.windows[plan.sample] ?? []))
      : runs
          .map((r) => ({ values: r.samples[plan.sample] ?? [], blocks: r.blocks[plan.sample] ?? [] }))
          .filter((r) => r.values.length > 0)
  const before = side(baseline)
  const after = side([current])
  const minimum = plan.kind === 'throughput' ? 2 : 1
  const count = (runs: BlockedRun[]): number => runs.reduce((n, r) => n + r.values.length, 0)
  if (count(before) < minimum || count(after) < minimum) {
    const where = count(before) < minimum ? 'the baseline' : 'the current run'
    const what = plan.kind === 'throughput' ? 'fewer than 2 steady-part windows' : 'no samples'
    return {
      metric: plan.label,
      actual: Number.NaN,
      limit: Number.NaN,
      unit: plan.unit,
      pass: false,
      verdict: 'inconclusive',
      detail: `? inconclusive  ${plan.label}: ${what} in ${where}`,
    }
  }
  const change: ChangeEstimate = blockBootstrapChange(
    before,
    after,
    bufferStatistic(plan.statistic)!,
    plan.direction,
    { resamples: RESAMPLES, seed: seedOf(metric), confidence: 1 - alpha },
  )
  // Requests, not windows or tokens, are what a user can add: scale by the current run's requests.
  const n = Math.max(current.samples.e2el?.length ?? 0, 1)
  const decision = decideChange({
    change: change.relative,
    interval: change.interval,
    pValue: change.pValue,
    direction: plan.direction,
    tolerance,
    alpha,
    n,
    ...(change.runEffect ? { runEffect: change.runEffect } : {}),
  })
  // A percentile whose upper bound does not exist at this sample size (p99 of 64 requests) cannot
  // be compared either: whatever the bootstrap says, the verdict waits for more requests.
  const level = quantileLevel(plan.statistic)
  if (level !== undefined && level > 0 && level < 1 && decision.verdict !== 'inconclusive') {
    const least = minSamplesForUpperBound(level)
    if (count(after) < least || count(before) < least) {
      decision.verdict = 'inconclusive'
      decision.neededRequests = Math.max(least, decision.neededRequests ?? 0)
    }
  }
  const pass = checkPasses(decision, policy)
  const mark =
    decision.verdict === 'pass' ? '✓ pass ' : decision.verdict === 'fail' ? '✗ fail ' : '? inconclusive '
  const needed =
    decision.verdict === 'inconclusive'
      ? ` — ${formatNeeded(decision.neededRequests ?? Number.POSITIVE_INFINITY, change.runEffect)}`
      : ''
  const detail = `${mark} ${plan.label} ${fmt(change.current, plan.unit)} vs ${fmt(change.baseline, plan.unit)}: ${formatChange(change, 1 - alpha)}${needed}`
  return {
    metric: plan.label,
    actual: change.current,
    limit: change.baseline,
    unit: plan.unit,
    pass,
    verdict: decision.verdict,
    interval: change.interval,
    pValue: change.pValue,
    ...(decision.neededRequests !== undefined ? { neededRequests: decision.neededRequests } : {}),
    ...(change.runEffect ? { runSpread: change.runEffect } : {}),
    detail,
  }
}

function summarise(checks: VerdictCheck[], tolerance: number, alpha: number): string {
  const tol = `${(tolerance * 100).toFixed(0)}% tolerance`
  const evidence = (c: VerdictCheck): string =>
    c.interval && c.pValue !== undefined
      ? `${c.metric} ${formatChange({ relative: c.actual / c.limit - 1, interval: c.interval, pValue: c.pValue }, 1 - alpha)}`
      : (c.detail ?? c.metric).replace(/^\? inconclusive\s+/, '')
  const failed = checks.filter((c) => c.verdict === 'fail')
  if (failed.length > 0) return `Baseline regression: ${failed.map(evidence).join('; ')} past the ${tol}`
  const open = checks.filter((c) => c.verdict === 'inconclusive')
  if (open.length > 0) return `Baseline inconclusive: ${open.map(evidence).join('; ')} (${tol})`
  return `Baseline matched: ${checks.length} metric${checks.length === 1 ? '' : 's'} within the ${tol}`
}

/** Why a stored baseline no longer applies: the workload fields that changed, or the two fingerprints. */
export function staleSummary(
  ctx: Pick<BaselineContext, 'name' | 'fingerprint' | 'workload'>,
  record: BaselineRecord,
): string {
  const changes = record.workload && ctx.workload ? describeChanges(record.workload, ctx.workload) : []
  const what =
    changes.length > 0
      ? `: ${changes.join(', ')}`
      : ` (fingerprint ${record.fingerprint}, now ${ctx.fingerprint})`
  return `Baseline stale: '${ctx.name}' was recorded with another configuration${what}; run with -u to re-record it`
}

function planOf(metric: string): Plan | undefined {
  const m = /^(mean|median|std|min|max|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$/.exec(metric)
  if (m && bufferStatistic(m[1]!)) {
    const which = m[2] as (typeof LATENCY_METRICS)[number]
    return {
      label: `${m[1]} ${METRIC_LABELS[which]}`,
      sample: which,
      statistic: m[1]!,
      kind: 'latency',
      direction: 'lower-is-better',
      unit: 'ms',
    }
  }
  if (metric in THROUGHPUT_UNITS) {
    return {
      label: metric.replaceAll('_', ' '),
      sample: metric,
      statistic: 'mean',
      kind: 'throughput',
      direction: 'higher-is-better',
      unit: THROUGHPUT_UNITS[metric as keyof typeof THROUGHPUT_UNITS],
    }
  }
  return undefined
}

function validate(e: unknown): BaselineExpectation {
  if (typeof e !== 'object' || e === null)
    throw new TypeError('toMatchBaseline expects { metrics?, tolerance?, alpha? }')
  const x = e as BaselineExpectation
  const unknown = Object.keys(x).filter((k) => !['metrics', 'tolerance', 'alpha'].includes(k))
  if (unknown.length > 0)
    throw new TypeError(`toMatchBaseline: unknown key '${unknown[0]}' (valid: metrics, tolerance, alpha)`)
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
  return x
}

// FNV-1a of the metric name: each metric its own reproducible resampling stream.
function seedOf(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

function fmt(v: number, unit: string): string {
  return unit === 'ms' ? `${v.toFixed(1)} ms` : `${v.toFixed(1)} ${unit}`
}
