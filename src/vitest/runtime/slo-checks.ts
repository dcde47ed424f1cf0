import type { GoodputConfig } from '../../config/bench-config.ts'
import type { RequestRecord } from '../../config/records.ts'
import type { BlockedRun } from '../../metrics/block-bootstrap.ts'
import { type BoundCheck, checkProportionBound, checkStatisticBound } from '../../metrics/bound-check.ts'
import { isGood } from '../../metrics/goodput.ts'
import {
  blockedLatencySamples,
  failedCount,
  intendedSamplesMs,
  isBenchResult,
  LATENCY_METRICS,
  METRIC_LABELS,
  requestCount,
  statisticOf,
  succeeded,
  throughputWindows,
} from '../../metrics/result-samples.ts'
import { windowRuns } from '../../metrics/window-throughput.ts'
import type {
  GoodputExpectation,
  LatencyBounds,
  ServeBenchResult,
  SloSpec,
  VerdictCheck,
} from '../shared/meta.ts'

/**
 * The checks of `toMeetSLO` and `toHaveGoodput`, each decided with its interval
 * (`metrics/bound-check.ts`): `pass` when the interval lies within the bound, `fail` when it lies
 * outside, otherwise `inconclusive` with the requests that would decide it. `pass` on a check is
 * the point estimate's side of the bound; the matcher applies the inconclusive policy. See
 * docs/statistics.md.
 */

/** Every bound of an SLO, checked. */
export function checkSlo(result: ServeBenchResult, slo: SloSpec, confidence: number): VerdictCheck[] {
  const checks: VerdictCheck[] = []
  for (const metric of LATENCY_METRICS) {
    const bounds = slo[metric]
    if (bounds)
      checks.push(
        ...boundChecks(METRIC_LABELS[metric], blockedLatencySamples(result, metric), bounds, confidence),
      )
  }
  for (const [key, base] of [
    ['intendedTtft', 'ttft'],
    ['intendedE2el', 'e2el'],
  ] as const) {
    const bounds = slo[key]
    if (!bounds) continue
    // The same requests and blocks as the metric from the send time, each one its own delay later.
    const run = {
      values: intendedSamplesMs(result, base),
      blocks: blockedLatencySamples(result, base).blocks,
    }
    checks.push(...boundChecks(`${METRIC_LABELS[base]} from intended send`, run, bounds, confidence))
  }
  for (const key of ['requestThroughput', 'outputThroughput'] as const) {
    const bound = slo[key]
    if (!bound || (key === 'outputThroughput' && !isBenchResult(result))) continue
    const resultKey = key === 'requestThroughput' ? 'request_throughput' : 'output_throughput'
    const actual = result[resultKey as 'request_throughput']
    const check = {
      metric: key === 'requestThroughput' ? 'request throughput' : 'output throughput',
      actual,
      limit: bound.min,
      unit: key === 'requestThroughput' ? 'req/s' : 'tok/s',
      pass: actual >= bound.min,
    }
    // The rates of the steady part's windows, as toMatchBaseline compares them.
    const [windows] = windowRuns([throughputWindows(result, resultKey).rates])
    checks.push(
      windows && windows.values.length >= 2
        ? judged(check, checkStatisticBound(windows, 'mean', bound.min, { kind: 'min', confidence }))
        : pointCheck(check),
    )
  }
  if (slo.errorRate !== undefined) {
    const total = requestCount(result)
    const failed = failedCount(result)
    const actual = total === 0 ? 1 : failed / total
    const check = {
      metric: 'error rate',
      actual,
      limit: slo.errorRate,
      unit: 'fraction',
      pass: actual <= slo.errorRate,
    }
    // A bound of 0 speaks of the run itself (no request may fail), not of a rate to estimate.
    if (slo.errorRate === 0 || total === 0) checks.push(pointCheck(check))
    else {
      checks.push(judged(check, checkProportionBound(failed, total, slo.errorRate, 'max', confidence)))
    }
  }
  if (slo.failed !== undefined) {
    const failed = failedCount(result)
    checks.push(
      pointCheck({
        metric: 'failed requests',
        actual: failed,
        limit: slo.failed,
        unit: 'count',
        pass: failed <= slo.failed,
      }),
    )
  }
  return checks
}

/** The goodput checks: the fraction of good requests (a proportion) and good requests per second. */
export function checkGoodput(
  result: ServeBenchResult,
  expectation: GoodputExpectation,
  slo: GoodputConfig,
  confidence: number,
): { checks: VerdictCheck[]; good: number; total: number } {
  const total = requestCount(result)
  let good = 0
  for (let i = 0; i < result.latencies.length; i++) if (isGood(recordAt(result, i), slo)) good++
  const checks: VerdictCheck[] = []
  const fraction = total === 0 ? 0 : good / total
  if (expectation.min !== undefined) {
    const check = {
      metric: 'goodput',
      actual: fraction,
      limit: expectation.min,
      unit: 'fraction',
      pass: fraction >= expectation.min,
    }
    checks.push(
      total > 0
        ? judged(check, checkProportionBound(good, total, expectation.min, 'min', confidence))
        : pointCheck(check),
    )
  }
  if (expectation.minRps !== undefined) {
    const perS = result.duration > 0 ? total / result.duration : 0
    const rps = fraction * perS
    const check = {
      metric: 'request goodput',
      actual: rps,
      limit: expectation.minRps,
      unit: 'req/s',
      pass: rps >= expectation.minRps,
    }
    // The good fraction's interval at the run's request rate.
    if (total > 0 && perS > 0) {
      const p = checkProportionBound(good, total, expectation.minRps / perS, 'min', confidence)
      checks.push(judged(check, { ...p, interval: [p.interval[0] * perS, p.interval[1] * perS] }))
    } else checks.push(pointCheck(check))
  }
  return { checks, good, total }
}

// Each statistic's bound on one latency sample (ms), decided with its interval.
function boundChecks(
  what: string,
  run: BlockedRun,
  bounds: LatencyBounds,
  confidence: number,
): VerdictCheck[] {
  const checks: VerdictCheck[] = []
  const values = Array.from(run.values)
  for (const [stat, limit] of Object.entries(bounds)) {
    if (limit === undefined) continue
    const metric = `${stat} ${what}`
    if (values.length === 0) {
      checks.push({ metric, actual: Number.NaN, limit, unit: 'ms', pass: false, verdict: 'fail' })
      continue
    }
    const actual = statisticOf(stat)!(values)
    checks.push(
      judged(
        { metric, actual, limit, unit: 'ms', pass: actual <= limit },
        checkStatisticBound(run, stat, limit, { kind: 'max', confidence }),
      ),
    )
  }
  return checks
}

type BareCheck = Omit<VerdictCheck, 'verdict'>

function pointCheck(c: BareCheck): VerdictCheck {
  return { ...c, verdict: c.pass ? 'pass' : 'fail' }
}

function judged(c: BareCheck, bound: BoundCheck): VerdictCheck {
  return {
    ...c,
    verdict: bound.verdict,
    interval: bound.interval,
    ...(bound.verdict === 'inconclusive' && bound.neededRequests !== undefined
      ? { neededRequests: bound.neededRequests }
      : {}),
  }
}

// The per-request view `isGood` reads, rebuilt from the result's arrays.
function recordAt(result: ServeBenchResult, i: number): RequestRecord {
  const generation = isBenchResult(result)
  return {
    success: succeeded(result, i),
    ttftS: generation ? (result.ttfts[i] ?? 0) : 0,
    latencyS: result.latencies[i] ?? 0,
    outputLen: generation ? (result.output_lens[i] ?? 0) : 0,
  } as RequestRecord
}
