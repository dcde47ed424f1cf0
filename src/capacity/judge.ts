/**
 * One probed load judged against the SLOs with the verdicts every check uses
 * (`metrics/bound-check.ts`): a latency statistic by its order-statistic and block-bootstrap
 * interval, a fraction (error rate, goodput) by its Wilson interval. `pass` when the interval lies
 * within the bound, `fail` when it lies outside, otherwise `inconclusive` with the requests that
 * would decide it.
 */
import type { GoodputConfig } from '../config/bench-config.ts'
import type { RequestRecord } from '../config/records.ts'
import { type BoundCheck, checkProportionBound, checkStatisticBound } from '../metrics/bound-check.ts'
import type { Decision } from '../metrics/decide.ts'
import { isGood } from '../metrics/goodput.ts'
import { blockedLatencySamples } from '../metrics/result-samples.ts'
import type { PoolingBenchResult } from '../report/result/pooling-result.ts'
import type { BenchResult } from '../report/result/result-types.ts'
import type { CapacityCheck, CapacitySlo } from './capacity-result.ts'
import { latencyParts, sloText } from './slo.ts'

/** A check with what the search needs beyond the file's fields. */
export interface JudgedCheck extends CapacityCheck {
  /** For `inconclusive`: about how many requests in all would decide it (Infinity when none would). */
  needed_requests?: number
}

/** A probe's checks and its verdict over them. */
export interface ProbeVerdict {
  verdict: Decision
  checks: JudgedCheck[]
}

/** Every SLO checked on one (possibly extended) probe; `records` are the probe's requests, in order. */
export function judgeProbe(
  result: BenchResult | PoolingBenchResult,
  records: readonly RequestRecord[],
  slos: readonly CapacitySlo[],
  goodput: GoodputConfig | undefined,
  confidence: number,
): ProbeVerdict {
  const checks = slos.map((slo) => judgeSlo(result, records, slo, goodput, confidence))
  return { verdict: combineVerdicts(checks.map((c) => c.verdict)), checks }
}

/** `fail` when any check fails, `pass` when all pass, else `inconclusive`. */
export function combineVerdicts(verdicts: readonly Decision[]): Decision {
  if (verdicts.includes('fail')) return 'fail'
  return verdicts.every((v) => v === 'pass') ? 'pass' : 'inconclusive'
}

function judgeSlo(
  result: BenchResult | PoolingBenchResult,
  records: readonly RequestRecord[],
  slo: CapacitySlo,
  goodput: GoodputConfig | undefined,
  confidence: number,
): JudgedCheck {
  const total = records.length
  const parts = latencyParts(slo.metric)
  if (parts) {
    const run = blockedLatencySamples(result, parts.latency)
    // No successful request measured the metric: the load is past what the server answers.
    if (run.values.length === 0) return point(slo, Number.POSITIVE_INFINITY, 'fail')
    return fromBound(slo, checkStatisticBound(run, parts.statistic, slo.bound, { kind: 'max', confidence }))
  }
  if (slo.metric === 'error_rate') {
    const failed = records.filter((r) => !r.success).length
    // A bound of 0 speaks of the run itself (no request may fail), not of a rate to estimate.
    if (slo.bound === 0 || total === 0)
      return point(slo, total === 0 ? 1 : failed / total, failed === 0 && total > 0 ? 'pass' : 'fail')
    return fromBound(slo, checkProportionBound(failed, total, slo.bound, 'max', confidence))
  }
  // goodput: the fraction of requests within the per-request limits.
  const good = goodput ? records.filter((r) => isGood(r, goodput)).length : 0
  if (total === 0) return point(slo, 0, 'fail')
  return fromBound(slo, checkProportionBound(good, total, slo.bound, 'min', confidence))
}

function fromBound(slo: CapacitySlo, bound: BoundCheck): JudgedCheck {
  return {
    slo: sloText(slo),
    verdict: bound.verdict,
    estimate: bound.estimate,
    lower: bound.interval[0],
    upper: bound.interval[1],
    ...(bound.verdict === 'inconclusive' ? { needed_requests: bound.neededRequests ?? Infinity } : {}),
  }
}

function point(slo: CapacitySlo, value: number, verdict: Decision): JudgedCheck {
  return { slo: sloText(slo), verdict, estimate: value, lower: value, upper: value }
}
