/**
 * `toMatchBaseline` on a capacity search: its answer against the answer stored with the same
 * snapshot semantics as every baseline (written when missing, rewritten with `-u`, a failure in CI
 * when missing, stale when the workload changed). The change is judged on the two intervals: the
 * current capacity relative to the baseline's, from `lower / baseline upper − 1` to
 * `upper / baseline lower − 1`; `fail` when all of it is a loss beyond the tolerance, `pass` when
 * none of it is, else `inconclusive` (decideBound on the relative change).
 */
import type { CapacityAnswer, CapacityResultFile } from '../../capacity/capacity-result.ts'
import { decideBound } from '../../metrics/decide.ts'
import type { VerdictCheck } from '../shared/meta.ts'
import { type BaselineContext, type BaselineOutcome, bareOutcome, staleSummary } from './baseline.ts'
import { baselineFilePath, readBaseline, writeBaseline } from './baseline-store.ts'

const DEFAULT_TOLERANCE = 0.1

/** Compares (or records) a capacity search's answer. */
export function matchCapacityBaseline(
  file: CapacityResultFile,
  expectation: unknown,
  ctx: BaselineContext,
): BaselineOutcome {
  const tolerance = validate(expectation)
  const path = baselineFilePath(ctx.baselineDir, ctx.root, ctx.file)
  const stored = readBaseline(path, ctx.name)
  const bare = bareOutcome
  const fresh = (): BaselineOutcome => {
    writeBaseline(path, ctx.name, {
      fingerprint: ctx.fingerprint,
      ...(ctx.workload ? { workload: ctx.workload } : {}),
      ...(ctx.provenance ? { provenance: ctx.provenance } : {}),
      runs: [],
      capacity: file.capacity,
    })
    return bare(true, `Baseline written: '${ctx.name}' (capacity ${describe(file.capacity)}) in ${path}`)
  }
  if (ctx.update === 'all') return fresh()
  if (stored.status === 'outdated')
    return bare(
      false,
      `Baseline outdated: ${path} was written by an older servebench (baseline file version ${stored.version}); rerecord it with -u and commit the file`,
    )
  if (stored.status === 'missing') {
    if (ctx.update === 'none')
      return bare(
        false,
        `Baseline missing: '${ctx.name}' has no baseline in ${path}; run with -u (outside CI) to record it and commit the file`,
      )
    return fresh()
  }
  const record = stored.record
  if (record.fingerprint !== ctx.fingerprint) return bare(false, staleSummary(ctx, record))
  if (!record.capacity)
    return bare(
      false,
      `Baseline stale: '${ctx.name}' holds request samples, not a capacity; run with -u to re-record it`,
    )
  const check = compareCapacity(file.capacity, record.capacity, tolerance)
  const summary =
    check.verdict === 'fail'
      ? `Baseline regressed: capacity ${check.detail}`
      : check.verdict === 'inconclusive'
        ? `Baseline undecided: capacity ${check.detail}`
        : `Baseline held: capacity ${check.detail}`
  return {
    pass: check.pass,
    verdict: check.verdict,
    summary,
    checks: [check],
    lines: [`  ${check.detail}`],
    notes: [],
  }
}

/** The relative change of the capacity against the baseline's, judged on both intervals. */
export function compareCapacity(
  current: CapacityAnswer,
  baseline: CapacityAnswer,
  tolerance: number,
): VerdictCheck {
  const unit = current.unit
  const base = baseline.value ?? 0
  const baseLower = baseline.lower ?? 0
  const baseUpper = baseline.upper ?? Number.POSITIVE_INFINITY
  const curValue = current.value ?? 0
  const curLower = current.lower ?? 0
  const curUpper = current.upper ?? Number.POSITIVE_INFINITY
  const ratio = (a: number, b: number): number =>
    b === 0 ? (a === 0 ? 0 : Number.POSITIVE_INFINITY) : a / b - 1
  const change = ratio(curValue, base)
  const lower = Number.isFinite(baseUpper) ? ratio(curLower, baseUpper) : -1
  const upper = ratio(curUpper, baseLower)
  const decision = decideBound({ estimate: change, lower, upper, limit: -tolerance, kind: 'min', n: 1 })
  const pct = (x: number): string =>
    Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}%` : '+∞'
  const detail = `${describe(current)} vs baseline ${describe(baseline)}: ${pct(change)} (interval ${pct(lower)} to ${pct(upper)}), tolerance −${(tolerance * 100).toFixed(0)}%`
  return {
    metric: 'capacity',
    actual: curValue,
    limit: base,
    unit,
    pass: decision.verdict === 'pass' || (decision.verdict === 'inconclusive' && !decision.pastLimit),
    verdict: decision.verdict,
    interval: [lower, upper],
    detail,
  }
}

function describe(a: CapacityAnswer): string {
  if (a.value === null) return `none (below ${a.upper ?? '?'} ${a.unit})`
  if (a.upper === null) return `≥ ${a.value} ${a.unit}`
  return `${a.value} ${a.unit} [${a.lower}–${a.upper}]`
}

function validate(e: unknown): number {
  if (typeof e !== 'object' || e === null)
    throw new TypeError('toMatchBaseline on a capacity expects { tolerance? }')
  const unknown = Object.keys(e).filter((k) => k !== 'tolerance')
  if (unknown.length > 0)
    throw new TypeError(`toMatchBaseline on a capacity: unknown key '${unknown[0]}' (valid: tolerance)`)
  const t = (e as { tolerance?: unknown }).tolerance
  if (t === undefined) return DEFAULT_TOLERANCE
  if (!(typeof t === 'number' && t >= 0 && t < 1))
    throw new TypeError(
      `toMatchBaseline: tolerance must be a relative loss like 0.1 for 10% (got ${String(t)})`,
    )
  return t
}
