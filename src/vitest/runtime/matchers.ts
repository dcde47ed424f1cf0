import { inject, type RunnerTestCase } from 'vitest'
import type { CapacityResultFile } from '../../capacity/capacity-result.ts'
import type { GoodputConfig } from '../../config/bench-config.ts'
import {
  isBenchResult,
  isServeBenchResult,
  LATENCY_METRICS,
  METRIC_LABELS,
  POOLING_LATENCY_METRICS,
  statisticOf,
} from '../../metrics/result-samples.ts'
import { formatCheck, formatLine } from '../../report/summary/check-format.ts'
import { worstVerdict } from '../../report/summary/verdict-marks.ts'
import type {
  GoodputExpectation,
  ServeBenchMeta,
  ServeBenchResult,
  SloSpec,
  Verdict,
  VerdictCheck,
} from '../shared/meta.ts'
import { type BaselineOutcome, baselineLabels, matchBaseline } from './baseline.ts'
import { baselineFilePath, readBaseline } from './baseline-store.ts'
import { matchCapacityBaseline } from './capacity-baseline.ts'
import { checkSustain, isCapacityResult } from './capacity-checks.ts'
import { baselineReplicates } from './late-results.ts'
import { checkGoodput, checkSlo } from './slo-checks.ts'

/** The part of Vitest's matcher context the matchers read. */
interface MatcherContext {
  isNot: boolean
  task?: Readonly<RunnerTestCase>
}

interface MatcherResult {
  pass: boolean
  message: () => string
}

const INTENDED_KEYS = ['intendedTtft', 'intendedE2el'] as const
const BOUND_KEYS: readonly string[] = [...LATENCY_METRICS, ...INTENDED_KEYS]
const SLO_KEYS = [...BOUND_KEYS, 'requestThroughput', 'outputThroughput', 'errorRate', 'failed'] as const

/** servebench's matchers, registered with `expect.extend` by the setup file. */
export const servebenchMatchers = {
  toMeetSLO(this: MatcherContext, received: unknown, slo: SloSpec): MatcherResult {
    const result = requireResult('toMeetSLO', received)
    const checks = checkSlo(result, validateSlo(slo, result), confidenceOf(this))
    return finish(this, 'toMeetSLO', checks, (met, shown) => `${met ? 'SLO met' : 'SLO missed'}: ${shown}`)
  },

  toHaveGoodput(this: MatcherContext, received: unknown, expectation: GoodputExpectation): MatcherResult {
    const result = requireResult('toHaveGoodput', received)
    const slo = validateGoodput(expectation, this.task?.meta.servebench?.goodput, result)
    const { checks, good, total } = checkGoodput(result, expectation, slo, confidenceOf(this))
    const what = `${good} of ${total} requests within ${formatGoodputSlo(slo)}`
    return finish(
      this,
      'toHaveGoodput',
      checks,
      (met, shown) => `${met ? 'Goodput met' : 'Goodput missed'}: ${shown} (${what})`,
    )
  },

  toSustain(this: MatcherContext, received: unknown, expectation: unknown): MatcherResult {
    if (!isCapacityResult(received))
      throw new TypeError(
        `toSustain expects the result that serveBench.capacity passes to its assertions (got ${describe(received)})`,
      )
    const check = checkSustain(received, expectation)
    return finish(
      this,
      'toSustain',
      [check],
      (met, shown) => `${met ? 'Load sustained' : 'Load not sustained'}: ${shown}`,
    )
  },

  toMatchBaseline(this: MatcherContext, received: unknown, expectation: unknown = {}): MatcherResult {
    if (isCapacityResult(received)) return capacityBaseline(this, received, expectation)
    const result = requireResult('toMatchBaseline', received)
    const { task, meta, ctx } = baselineContextOf(this)
    if (meta.invalid) return invalidBaseline(this, meta, meta.invalid)
    // A probe between rounds only compares: it writes nothing, and notes that the final pass will.
    if (meta.probing && willRecord(ctx)) {
      // The metrics it will compare, as passing checks: the client self-check reads their scale.
      const planned = baselineLabels(result, expectation).map(
        (metric): VerdictCheck => ({
          metric,
          actual: Number.NaN,
          limit: Number.NaN,
          unit: '',
          pass: true,
          verdict: 'pass',
        }),
      )
      meta.verdicts.push({
        matcher: 'toMatchBaseline',
        pass: true,
        verdict: 'pass',
        summary: '',
        checks: planned,
        recording: true,
      })
      return { pass: !this.isNot, message: () => 'baseline to be recorded' }
    }
    // A baseline this benchmark recorded a moment ago (an earlier toMatchBaseline of the same
    // assertions) is written again, never compared with the run it was recorded from.
    const recordedNow = meta.verdicts.some((v) => v.matcher === 'toMatchBaseline' && v.recording === true)
    const outcome = matchBaseline(result, expectation, {
      ...ctx,
      ...(recordedNow ? { update: 'all' as const } : {}),
      ...(meta.provenance ? { provenance: meta.provenance } : {}),
      ...(meta.workload ? { workload: meta.workload } : {}),
      recordRuns: (baselineReplicates().get(task) ?? []) as ServeBenchResult[],
    })
    if (outcome.checks.length === 0)
      return bareBaseline(this, meta, outcome, [outcome.summary, ...outcome.lines].join('\n'))
    return finish(
      this,
      'toMatchBaseline',
      outcome.checks,
      () => outcome.summary,
      outcome.notes.map((n) => `note: ${n}`),
    )
  },
}

// toMatchBaseline on a capacity search's answer: the same snapshot semantics and verdicts.
function capacityBaseline(
  ctx: MatcherContext,
  file: CapacityResultFile,
  expectation: unknown,
): MatcherResult {
  const { meta, ctx: where } = baselineContextOf(ctx)
  if (meta.invalid) return invalidBaseline(ctx, meta, meta.invalid)
  const outcome = matchCapacityBaseline(file, expectation, {
    ...where,
    ...(meta.provenance ? { provenance: meta.provenance } : {}),
    ...(meta.workload ? { workload: meta.workload } : {}),
  })
  if (outcome.checks.length > 0) return finish(ctx, 'toMatchBaseline', outcome.checks, () => outcome.summary)
  return bareBaseline(ctx, meta, outcome, outcome.summary)
}

// The benchmark's meta and where its baseline lives; toMatchBaseline needs a serveBench task.
function baselineContextOf(ctx: MatcherContext) {
  const task = ctx.task
  const meta = task?.meta.servebench
  if (!task || !meta)
    throw new TypeError(
      'toMatchBaseline works only inside serveBench assertions (it needs the benchmark name and file)',
    )
  return {
    task,
    meta,
    ctx: {
      file: task.file.filepath,
      name: task.fullTestName ?? task.name,
      fingerprint: meta.fingerprint,
      update: inject('servebench:update') ?? 'new',
      baselineDir: inject('servebench:baselineDir') ?? '__baselines__',
      root: inject('servebench:root') ?? process.cwd(),
    },
  }
}

// An invalid run neither records a baseline nor is compared with one.
function invalidBaseline(ctx: MatcherContext, meta: ServeBenchMeta, reason: string): MatcherResult {
  const summary = `Baseline invalid: ${reason}`
  meta.verdicts.push({ matcher: 'toMatchBaseline', pass: ctx.isNot, verdict: 'invalid', summary, checks: [] })
  return { pass: false, message: () => summary }
}

// A baseline written, missing, outdated or stale: no comparison, the summary says it all.
function bareBaseline(
  ctx: MatcherContext,
  meta: ServeBenchMeta,
  outcome: BaselineOutcome,
  body: string,
): MatcherResult {
  meta.verdicts.push({
    matcher: 'toMatchBaseline',
    pass: outcome.pass !== ctx.isNot,
    verdict: outcome.verdict,
    summary: outcome.summary,
    checks: [],
    ...(outcome.pass ? { recording: true } : {}),
  })
  return {
    pass: outcome.pass,
    message: () => (ctx.isNot ? `expected toMatchBaseline to fail, but it passed:\n${body}` : body),
  }
}

function finish(
  ctx: MatcherContext,
  matcher: Verdict['matcher'],
  judged: VerdictCheck[],
  summarize: (met: boolean, shown: string) => string,
  notes: string[] = [],
): MatcherResult {
  const meta = ctx.task?.meta.servebench
  const policy = meta?.inconclusivePolicy ?? 'point'
  const checks = judged.map((c): VerdictCheck => {
    if (meta?.invalid) return { ...c, verdict: 'invalid', pass: false }
    if (c.verdict !== 'inconclusive') return c
    // The policy of a check the budget left undecided: `point` keeps the point estimate's side.
    return { ...c, pass: policy === 'warn' ? true : policy === 'fail' ? false : c.pass }
  })
  const met = checks.every((c) => c.pass)
  const verdict = worstVerdict(checks.map((c) => c.verdict))
  const shown = (met ? checks : checks.filter((c) => !c.pass))
    .map((c) => (c.detail ? `${c.metric} ${c.detail}` : formatCheck(c)))
    .join('; ')
  const what =
    matcher === 'toMatchBaseline'
      ? 'Baseline'
      : matcher === 'toHaveGoodput'
        ? 'Goodput'
        : matcher === 'toSustain'
          ? 'Load'
          : 'SLO'
  const undecided = !met && checks.every((c) => c.pass || c.verdict === 'inconclusive')
  const summary = meta?.invalid
    ? `${what} invalid: ${meta.invalid}`
    : undecided
      ? `${what} undecided: ${shown}`
      : summarize(met, shown)
  const outcome = met !== Boolean(ctx.isNot)
  // Appended, never assigned: several matchers (and `.not`) may run in one benchmark.
  meta?.verdicts.push({ matcher, pass: outcome, verdict, summary, checks })
  const confidence = meta?.confidence ?? 0.95
  const lines = checks.map((c) => `  ${formatLine(c, confidence, meta?.rounds)}`)
  const body = [summary, ...lines, ...notes.map((n) => `  ${n}`)].join('\n')
  const message = (): string => (ctx.isNot ? `expected ${matcher} to fail, but it passed:\n${body}` : body)
  // A probe between rounds records and lets the assertions go on.
  if (meta?.probing) return { pass: !ctx.isNot, message }
  // No actual/expected: Vitest would print them as a diff of every check, passing ones included.
  return { pass: met, message }
}

function willRecord(ctx: {
  update: string
  baselineDir: string
  root: string
  file: string
  name: string
}): boolean {
  if (ctx.update === 'all') return true
  if (ctx.update === 'none') return false
  return readBaseline(baselineFilePath(ctx.baselineDir, ctx.root, ctx.file), ctx.name).status === 'missing'
}

function confidenceOf(ctx: MatcherContext): number {
  return ctx.task?.meta.servebench?.confidence ?? 0.95
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
        key === 'intendedTtft' ||
        ((LATENCY_METRICS as readonly string[]).includes(key) &&
          !(POOLING_LATENCY_METRICS as readonly string[]).includes(key)))
    ) {
      tokenKeys.push(key)
    } else if ((INTENDED_KEYS as readonly string[]).includes(key) && !('intended_delays' in result)) {
      problems.push(
        `${key} needs an open-loop run (a finite load rate, a ramp-up or a trace): a closed loop has no intended send times`,
      )
    } else if (BOUND_KEYS.includes(key)) {
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
