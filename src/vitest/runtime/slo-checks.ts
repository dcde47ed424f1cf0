import type { GoodputConfig } from '../../config/bench-config.ts'
import type { RequestRecord } from '../../config/records.ts'
import { isGood } from '../../metrics/goodput.ts'
import { proportionInterval, proportionRequestsNeeded } from '../../metrics/proportion-interval.ts'
import { quantileInterval, quantileRequestsNeeded } from '../../metrics/quantile-interval.ts'
import type {
  GoodputExpectation,
  ServeBenchResult,
  SloSpec,
  VerdictCheck,
  VerdictValue,
} from '../shared/meta.ts'
import { meanBound, throughputBound } from './sample-bounds.ts'
import {
  failedCount,
  isBenchResult,
  LATENCY_METRICS,
  type LatencyMetric,
  latencySamplesMs,
  METRIC_LABELS,
  requestCount,
  statisticOf,
  succeeded,
} from './samples.ts'

/**
 * The checks of `toMeetSLO` and `toHaveGoodput`, each with a confidence interval and a three-valued
 * verdict: `pass` when the interval lies within the bound, `fail` when it lies outside, otherwise
 * `inconclusive` with the requests that would decide it. `pass` on a check is the point estimate's
 * side of the bound; the matcher applies the inconclusive policy. See docs/statistics.md.
 */

/** Where an interval lies against a bound: upper limits for latencies and rates of failure, lower limits for throughputs and goodput. */
export function decide(
  interval: readonly [number, number],
  limit: number,
  kind: 'max' | 'min',
): VerdictValue {
  const [lo, hi] = interval
  if (kind === 'max') return hi <= limit ? 'pass' : lo > limit ? 'fail' : 'inconclusive'
  return lo >= limit ? 'pass' : hi < limit ? 'fail' : 'inconclusive'
}

/** Every bound of an SLO, checked. */
export function checkSlo(result: ServeBenchResult, slo: SloSpec, confidence: number): VerdictCheck[] {
  const checks: VerdictCheck[] = []
  for (const metric of LATENCY_METRICS) {
    const bounds = slo[metric]
    if (!bounds) continue
    const samples = latencySamplesMs(result, metric as LatencyMetric)
    for (const [stat, limit] of Object.entries(bounds)) {
      if (limit === undefined) continue
      checks.push(latencyCheck(result, metric, samples, stat, limit, confidence))
    }
  }
  for (const key of ['requestThroughput', 'outputThroughput'] as const) {
    const bound = slo[key]
    if (!bound || (key === 'outputThroughput' && !isBenchResult(result))) continue
    const resultKey = key === 'requestThroughput' ? 'request_throughput' : 'output_throughput'
    const actual = result[resultKey as 'request_throughput']
    const b = throughputBound(result, resultKey, confidence)
    checks.push(
      withInterval(
        {
          metric: key === 'requestThroughput' ? 'request throughput' : 'output throughput',
          actual,
          limit: bound.min,
          unit: key === 'requestThroughput' ? 'req/s' : 'tok/s',
          pass: actual >= bound.min,
        },
        b?.interval,
        'min',
        b?.neededRequests,
      ),
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
      const p = proportionInterval(failed, total, confidence)
      checks.push(
        withInterval(
          check,
          [p.lower, p.upper],
          'max',
          proportionRequestsNeeded(failed, total, slo.errorRate, confidence),
        ),
      )
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
  const p = total > 0 ? proportionInterval(good, total, confidence) : undefined
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
      p
        ? withInterval(
            check,
            [p.lower, p.upper],
            'min',
            proportionRequestsNeeded(good, total, expectation.min, confidence),
          )
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
    // The fraction's interval at the run's request rate.
    checks.push(
      p && perS > 0
        ? withInterval(
            check,
            [p.lower * perS, p.upper * perS],
            'min',
            proportionRequestsNeeded(good, total, expectation.minRps / perS, confidence),
          )
        : pointCheck(check),
    )
  }
  return { checks, good, total }
}

function latencyCheck(
  result: ServeBenchResult,
  metric: LatencyMetric,
  samples: number[],
  stat: string,
  limit: number,
  confidence: number,
): VerdictCheck {
  const label = `${stat} ${METRIC_LABELS[metric]}`
  if (samples.length === 0) {
    return { metric: label, actual: Number.NaN, limit, unit: 'ms', pass: false, verdict: 'fail' }
  }
  const actual = statisticOf(stat)!(samples)
  const base = { metric: label, actual, limit, unit: 'ms', pass: actual <= limit }
  const p = quantileOf(stat)
  if (p !== undefined) {
    const sorted = Float64Array.from(samples).sort()
    const q = quantileInterval(sorted, p, confidence)
    return withInterval(base, [q.lower, q.upper], 'max', quantileRequestsNeeded(sorted, p, limit, confidence))
  }
  if (stat === 'mean') {
    const b = meanBound(result, metric, confidence)
    if (b) return withInterval(base, b.interval, 'max', b.neededRequests)
  }
  // min, max and std describe this run as observed.
  return pointCheck(base)
}

// `median` and `pNN` with 0 < NN < 100 as a fraction; min and max (p0, p100) are observed values.
function quantileOf(stat: string): number | undefined {
  if (stat === 'median') return 0.5
  const m = /^p(\d+(?:\.\d+)?)$/.exec(stat)
  const p = m ? Number(m[1]) / 100 : Number.NaN
  return p > 0 && p < 1 ? p : undefined
}

type BareCheck = Omit<VerdictCheck, 'verdict'>

function pointCheck(c: BareCheck): VerdictCheck {
  return { ...c, verdict: c.pass ? 'pass' : 'fail' }
}

function withInterval(
  c: BareCheck,
  interval: readonly [number, number] | undefined,
  kind: 'max' | 'min',
  neededRequests: number | undefined,
): VerdictCheck {
  if (!interval) return pointCheck(c)
  const verdict = decide(interval, c.limit, kind)
  return {
    ...c,
    verdict,
    interval: [interval[0], interval[1]],
    ...(verdict === 'inconclusive' && neededRequests !== undefined ? { neededRequests } : {}),
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
