import { inject, type RunnerTestCase } from 'vitest'
import type { GoodputConfig } from '../../config/bench-config.ts'
import type { RequestRecord } from '../../config/records.ts'
import { isGood } from '../../metrics/goodput.ts'
import type { GoodputExpectation, ServeBenchResult, SloSpec, Verdict, VerdictCheck } from '../shared/meta.ts'
import { matchBaseline } from './baseline.ts'
import {
  failedCount,
  isBenchResult,
  isServeBenchResult,
  LATENCY_METRICS,
  type LatencyMetric,
  latencySamplesMs,
  METRIC_LABELS,
  POOLING_LATENCY_METRICS,
  requestCount,
  statisticOf,
  succeeded,
} from './samples.ts'

/** The part of Vitest's matcher context the matchers read. */
interface MatcherContext {
  isNot: boolean
  task?: Readonly<RunnerTestCase>
}

interface MatcherResult {
  pass: boolean
  message: () => string
  actual: unknown
  expected: unknown
}

const SLO_KEYS = [...LATENCY_METRICS, 'requestThroughput', 'outputThroughput', 'errorRate', 'failed'] as const

/** servebench's matchers, registered with `expect.extend` by the setup file. */
export const servebenchMatchers = {
  toMeetSLO(this: MatcherContext, received: unknown, slo: SloSpec): MatcherResult {
    const result = requireResult('toMeetSLO', received)
    const checks = checkSlo(result, validateSlo(slo, result))
    const met = checks.every((c) => c.pass)
    const failedChecks = checks.filter((c) => !c.pass)
    const summary = met
      ? `SLO met: ${checks.map(formatCheck).join('; ')}`
      : `SLO missed: ${failedChecks.map(formatCheck).join('; ')}`
    return finish(this, 'toMeetSLO', met, summary, checks, slo)
  },

  toHaveGoodput(this: MatcherContext, received: unknown, expectation: GoodputExpectation): MatcherResult {
    const result = requireResult('toHaveGoodput', received)
    const slo = validateGoodput(expectation, this.task?.meta.servebench?.goodput, result)
    const total = requestCount(result)
    let good = 0
    for (let i = 0; i < result.latencies.length; i++) if (isGood(recordAt(result, i), slo)) good++
    const checks: VerdictCheck[] = []
    const fraction = total === 0 ? 0 : good / total
    if (expectation.min !== undefined) {
      checks.push({
        metric: 'goodput',
        actual: fraction,
        limit: expectation.min,
        unit: 'fraction',
        pass: fraction >= expectation.min,
        verdict: fraction >= expectation.min ? 'pass' : 'fail',
      })
    }
    if (expectation.minRps !== undefined) {
      const rps = result.duration > 0 ? good / result.duration : 0
      checks.push({
        metric: 'request goodput',
        actual: rps,
        limit: expectation.minRps,
        unit: 'req/s',
        pass: rps >= expectation.minRps,
        verdict: rps >= expectation.minRps ? 'pass' : 'fail',
      })
    }
    const met = checks.every((c) => c.pass)
    const what = `${good} of ${total} requests within ${formatGoodputSlo(slo)}`
    const summary = `${met ? 'Goodput met' : 'Goodput missed'}: ${(met ? checks : checks.filter((c) => !c.pass)).map(formatCheck).join('; ')} (${what})`
    return finish(this, 'toHaveGoodput', met, summary, checks, expectation)
  },

  toMatchBaseline(this: MatcherContext, received: unknown, expectation: unknown = {}): MatcherResult {
    const result = requireResult('toMatchBaseline', received)
    const task = this.task
    const meta = task?.meta.servebench
    if (!task || !meta) {
      throw new TypeError(
        'toMatchBaseline works only inside serveBench assertions (it needs the benchmark name and file)',
      )
    }
    const outcome = matchBaseline(result, expectation, {
      file: task.file.filepath,
      name: task.fullTestName ?? task.name,
      fingerprint: meta.fingerprint,
      update: inject('servebench:update') ?? 'new',
      baselineDir: inject('servebench:baselineDir') ?? '__baselines__',
      root: inject('servebench:root') ?? process.cwd(),
    })
    return finish(
      this,
      'toMatchBaseline',
      outcome.pass,
      outcome.summary,
      outcome.checks,
      expectation,
      outcome.lines,
    )
  },
}

function finish(
  ctx: MatcherContext,
  matcher: Verdict['matcher'],
  pass: boolean,
  summary: string,
  checks: VerdictCheck[],
  expected: unknown,
  lines: string[] = checks.map((c) => `  ${c.pass ? '✓' : '✗'} ${formatCheck(c)}`),
): MatcherResult {
  const outcome = pass !== Boolean(ctx.isNot)
  // Appended, never assigned: several matchers (and `.not`) may run in one benchmark.
  ctx.task?.meta.servebench?.verdicts.push({
    matcher,
    pass: outcome,
    verdict: outcome ? 'pass' : 'fail',
    summary,
    checks,
  })
  const body = [summary, ...lines].join('\n')
  return {
    pass,
    message: () => (ctx.isNot ? `expected ${matcher} to fail, but it passed:\n${body}` : body),
    actual: Object.fromEntries(checks.map((c) => [c.metric, c.actual])),
    expected: checks.length > 0 ? Object.fromEntries(checks.map((c) => [c.metric, c.limit])) : expected,
  }
}

function requireResult(matcher: string, received: unknown): ServeBenchResult {
  if (!isServeBenchResult(received)) {
    throw new TypeError(
      `${matcher} expects the result that serveBench passes to its assertions (got ${describe(received)})`,
    )
  }
  return received
}

function validateSlo(slo: unknown, result: ServeBenchResult): SloSpec {
  if (typeof slo !== 'object' || slo === null)
    throw new TypeError(`toMeetSLO expects an SLO object (got ${describe(slo)})`)
  const problems: string[] = []
  const pooling = !isBenchResult(result)
  const tokenKeys: string[] = []
  for (const [key, value] of Object.entries(slo)) {
    if (!(SLO_KEYS as readonly string[]).includes(key)) {
      problems.push(`unknown key '${key}' (valid: ${SLO_KEYS.join(', ')})`)
    } else if (
      pooling &&
      (key === 'outputThroughput' ||
        ((LATENCY_METRICS as readonly string[]).includes(key) &&
          !(POOLING_LATENCY_METRICS as readonly string[]).includes(key)))
    ) {
      tokenKeys.push(key)
    } else if ((LATENCY_METRICS as readonly string[]).includes(key)) {
      if (typeof value !== 'object' || value === null)
        problems.push(`${key} must be an object of bounds like { p99: 300 }`)
      else
        for (const [stat, bound] of Object.entries(value)) {
          if (!statisticOf(stat))
            problems.push(`${key}.${stat} is not a statistic (use mean, median, std, min, max or p0–p100)`)
          else if (!isNonNegative(bound))
            problems.push(`${key}.${stat} must be a non-negative number of ms (got ${describe(bound)})`)
        }
    } else if (key === 'requestThroughput' || key === 'outputThroughput') {
      const min = (value as { min?: unknown } | null)?.min
      if (!isNonNegative(min)) problems.push(`${key} must be { min: <number> } (got ${describe(value)})`)
    } else if (key === 'errorRate' && !(isNonNegative(value) && value <= 1)) {
      problems.push(`errorRate must be a fraction in [0, 1] (got ${describe(value)})`)
    } else if (key === 'failed' && !isNonNegative(value)) {
      problems.push(`failed must be a non-negative count (got ${describe(value)})`)
    }
  }
  if (tokenKeys.length > 0)
    problems.push(
      `${tokenKeys.join(', ')} ${tokenKeys.length === 1 ? 'needs' : 'need'} a token stream, but this is a pooling run (${result.backend}) with no output tokens; bound e2el, requestThroughput, errorRate or failed`,
    )
  if (Object.keys(slo).length === 0) problems.push('no bound given')
  if (problems.length > 0) throw new TypeError(`toMeetSLO: ${problems.join('; ')}`)
  return slo as SloSpec
}

function checkSlo(result: ServeBenchResult, slo: SloSpec): VerdictCheck[] {
  const checks: VerdictCheck[] = []
  for (const metric of LATENCY_METRICS) {
    const bounds = slo[metric]
    if (!bounds) continue
    const samples = latencySamplesMs(result, metric as LatencyMetric)
    for (const [stat, limit] of Object.entries(bounds)) {
      if (limit === undefined) continue
      const actual = samples.length === 0 ? Number.NaN : statisticOf(stat)!(samples)
      checks.push({
        metric: `${stat} ${METRIC_LABELS[metric]}`,
        actual,
        limit,
        unit: 'ms',
        pass: actual <= limit,
        verdict: actual <= limit ? 'pass' : 'fail',
      })
    }
  }
  if (slo.requestThroughput) {
    const actual = result.request_throughput
    checks.push({
      metric: 'request throughput',
      actual,
      limit: slo.requestThroughput.min,
      unit: 'req/s',
      pass: actual >= slo.requestThroughput.min,
      verdict: actual >= slo.requestThroughput.min ? 'pass' : 'fail',
    })
  }
  if (slo.outputThroughput && isBenchResult(result)) {
    const actual = result.output_throughput
    checks.push({
      metric: 'output throughput',
      actual,
      limit: slo.outputThroughput.min,
      unit: 'tok/s',
      pass: actual >= slo.outputThroughput.min,
      verdict: actual >= slo.outputThroughput.min ? 'pass' : 'fail',
    })
  }
  if (slo.errorRate !== undefined) {
    const total = requestCount(result)
    const actual = total === 0 ? 1 : failedCount(result) / total
    checks.push({
      metric: 'error rate',
      actual,
      limit: slo.errorRate,
      unit: 'fraction',
      pass: actual <= slo.errorRate,
      verdict: actual <= slo.errorRate ? 'pass' : 'fail',
    })
  }
  if (slo.failed !== undefined) {
    const failed = failedCount(result)
    checks.push({
      metric: 'failed requests',
      actual: failed,
      limit: slo.failed,
      unit: 'count',
      pass: failed <= slo.failed,
      verdict: failed <= slo.failed ? 'pass' : 'fail',
    })
  }
  return checks
}

function validateGoodput(
  e: unknown,
  fromOptions: GoodputConfig | undefined,
  result: ServeBenchResult,
): GoodputConfig {
  const x = e as GoodputExpectation | null
  if (typeof x !== 'object' || x === null)
    throw new TypeError(`toHaveGoodput expects { min } or { minRps } (got ${describe(e)})`)
  const unknown = Object.keys(x).filter((k) => !['min', 'minRps', 'slo'].includes(k))
  if (unknown.length > 0)
    throw new TypeError(`toHaveGoodput: unknown key '${unknown[0]}' (valid: min, minRps, slo)`)
  if (x.min === undefined && x.minRps === undefined)
    throw new TypeError('toHaveGoodput needs min (a fraction) or minRps')
  if (x.min !== undefined && !(isNonNegative(x.min) && x.min <= 1))
    throw new TypeError(`toHaveGoodput: min must be a fraction in [0, 1] (got ${describe(x.min)})`)
  if (x.minRps !== undefined && !isNonNegative(x.minRps))
    throw new TypeError(`toHaveGoodput: minRps must be a non-negative number (got ${describe(x.minRps)})`)
  const slo = x.slo ?? fromOptions
  if (!slo || (slo.ttft === undefined && slo.tpot === undefined && slo.e2el === undefined)) {
    throw new TypeError(
      "toHaveGoodput needs a goodput SLO: set serveBench's goodput option or pass { slo: { ttft, tpot, e2el } }",
    )
  }
  if (!isBenchResult(result) && (slo.ttft !== undefined || slo.tpot !== undefined)) {
    throw new TypeError(
      `toHaveGoodput: a pooling run (${result.backend}) has no token stream, so its goodput SLO can bound only e2el (got ${formatGoodputSlo(slo)})`,
    )
  }
  return slo
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

/** `p99 TTFT 412.3 ms > 300 ms`, `error rate 20.0% > 1.0%`, `request throughput 9.80 req/s < 10 req/s`. */
export function formatCheck(c: VerdictCheck): string {
  const lower = c.unit === 'req/s' || c.unit === 'tok/s' || c.metric === 'goodput'
  const op = c.pass ? (lower ? '≥' : '≤') : lower ? '<' : '>'
  return `${c.metric} ${formatValue(c.actual, c.unit)} ${op} ${formatLimit(c.limit, c.unit)}`
}

export function formatValue(v: number, unit: string): string {
  if (Number.isNaN(v)) return 'n/a (no successful requests)'
  if (unit === 'fraction') return `${(v * 100).toFixed(1)}%`
  if (unit === 'count') return String(v)
  if (unit === 'ms') return `${v.toFixed(1)} ms`
  return `${v.toFixed(2)} ${unit}`
}

// Limits as the user wrote them: `300 ms`, `1%`, `10 req/s`.
function formatLimit(v: number, unit: string): string {
  if (unit === 'fraction') return `${Number((v * 100).toPrecision(6))}%`
  if (unit === 'count') return String(v)
  return `${v} ${unit}`
}

function formatGoodputSlo(slo: GoodputConfig): string {
  const parts = (['ttft', 'tpot', 'e2el'] as const)
    .filter((k) => slo[k] !== undefined)
    .map((k) => `${METRIC_LABELS[k]} ≤ ${slo[k]} ms`)
  return parts.join(', ')
}

function isNonNegative(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0
}

function describe(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return JSON.stringify(v)?.slice(0, 60) ?? 'an object'
  return typeof v === 'string' ? `'${v}'` : String(v)
}
