/**
 * `toSustain` on a capacity search: can the server hold a given load under the SLOs? `pass` only
 * when the answer's interval lies at or above it (its lower end, the highest load that passed,
 * holds it), `fail` when the interval's upper end (the lowest load that failed) is at or below it,
 * else `inconclusive`.
 */
import type { CapacityResultFile } from '../../capacity/capacity-result.ts'
import type { VerdictCheck } from '../shared/meta.ts'

/** The argument of `toSustain`: one load, in the unit the search varied. */
export interface SustainExpectation {
  /** Requests per second (a search with `vary: 'request-rate'`). */
  requestRate?: number
  /** Concurrent requests (a search with `vary: 'max-concurrency'`). */
  maxConcurrency?: number
}

/** Whether `value` is what `serveBench.capacity` passes to its assertions. */
export function isCapacityResult(value: unknown): value is CapacityResultFile {
  const v = value as Partial<CapacityResultFile> | null
  return (
    typeof v === 'object' && v !== null && v.servebench_kind === 'capacity' && typeof v.capacity === 'object'
  )
}

/** The check of `toSustain`; a wrong argument is a TypeError. */
export function checkSustain(file: CapacityResultFile, expectation: unknown): VerdictCheck {
  const e = expectation as SustainExpectation | null
  if (typeof e !== 'object' || e === null)
    throw new TypeError('toSustain expects { requestRate } or { maxConcurrency }')
  const keys = Object.keys(e)
  const bad = keys.filter((k) => k !== 'requestRate' && k !== 'maxConcurrency')
  if (bad.length > 0 || keys.length !== 1)
    throw new TypeError(
      `toSustain expects exactly one of requestRate, maxConcurrency (got ${keys.length === 0 ? 'none' : keys.join(', ')})`,
    )
  const key = keys[0] as keyof SustainExpectation
  const wanted = key === 'requestRate' ? 'request-rate' : 'max-concurrency'
  const { capacity } = file
  if (capacity.vary !== wanted)
    throw new TypeError(
      `toSustain({ ${key} }) needs a search that varies ${wanted}; this one varied ${capacity.vary} (search.vary)`,
    )
  const load = e[key]
  if (!(typeof load === 'number' && Number.isFinite(load) && load > 0))
    throw new TypeError(`toSustain: ${key} must be a number above 0 (got ${String(load)})`)
  const lower = capacity.lower ?? 0
  const upper = capacity.upper ?? Number.POSITIVE_INFINITY
  const value = capacity.value ?? 0
  const verdict = lower >= load ? 'pass' : upper <= load ? 'fail' : 'inconclusive'
  const unit = capacity.unit
  const range = `${capacity.lower ?? 'none'}–${capacity.upper ?? '∞'} ${unit}`
  return {
    metric: 'capacity',
    actual: value,
    limit: load,
    unit,
    // An undecided check keeps the point estimate's side, as every check does.
    pass: verdict === 'pass' || (verdict === 'inconclusive' && value >= load),
    verdict,
    interval: [lower, upper],
    detail: `${capacity.value ?? 'none'} ${unit} (${Math.round(capacity.confidence * 100)}% interval ${range}${capacity.binding_slo ? `, binding ${capacity.binding_slo}` : ''}) against ${load} ${unit}`,
  }
}
