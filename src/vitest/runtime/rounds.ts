import { strict as assert } from 'node:assert'
import type { RunnerTestCase } from 'vitest'
import type { BenchConfig } from '../../config/bench-config.ts'
import type { ResolvedVerdictOptions } from '../../config/verdict-options.ts'
import type { ReadingMetric } from '../../metrics/client-health.ts'
import { clientHealthOf } from '../../metrics/result-samples.ts'
import type { BenchResult } from '../../report/result/result-types.ts'
import type { RunResult } from '../../report/result/run-result.ts'
import { mergeRounds } from '../../runner/merge-rounds.ts'
import { planRun } from '../../runner/run-plan.ts'
import type { RunOutcome } from '../../runner/run-types.ts'
import type { ServeBenchMeta, ServeBenchResult, Verdict } from '../shared/meta.ts'
import { judgeRoundAt, readingMetricsOf } from './judged-scale.ts'
import { planExtension, type UndecidedCheck } from './undecidable.ts'

/** Runs one round of the benchmark with the given configuration. */
export type MeasureRound = (config: BenchConfig) => Promise<RunOutcome>

/** What the rounds left: the outcome of all valid rounds together, and why the run is invalid. */
export interface JudgedOutcome {
  outcome: RunOutcome
  /** The client self-check's reason when a round stayed saturated after its retries. */
  invalid?: string
  /** Rounds measured (retries of invalid rounds not counted). */
  rounds: number
  /** Extra whole runs made to record a multi-run baseline (`baselineRuns`). */
  baselineRuns: ServeBenchResult[]
  /**
   * Saturated rounds let through by `clientCheck: 'warn'`, in the self-check's words, and each
   * check set aside because no round within the budget could decide it.
   */
  warnings: string[]
}

/**
 * Runs a benchmark in rounds: after each round its assertions are tried in probe mode (matchers
 * record verdicts and never throw); while a check is `inconclusive` and the budget allows, another
 * round, sized by the requests the checks say would decide them, is measured with a fresh seed and
 * judged together with the earlier ones. A round whose client was saturated is run again
 * (`retryInvalid`), and stays `invalid` when it still is.
 */
export async function runInRounds(input: {
  config: BenchConfig
  options: ResolvedVerdictOptions
  task: RunnerTestCase
  meta: ServeBenchMeta
  assertions?: (result: ServeBenchResult) => void | Promise<void>
  measure: MeasureRound
}): Promise<JudgedOutcome> {
  const { config, options, meta, assertions, measure } = input
  // The CLI's choice of mode; the DSL has no sweep or --num-runs.
  const plan = planRun(config)
  assert(
    plan.kind === 'single' || plan.kind === 'multi-turn',
    `serveBench cannot run a ${plan.kind} plan. This is a bug in servebench.`,
  )
  const budget = options.budget
  const rounds: RunOutcome[] = []
  let requests = 0
  let seconds = 0
  let size = config.numPrompts
  let invalid: string | undefined
  let wantsBaseline = false
  let merged: RunOutcome | undefined
  const warnings: string[] = []
  // Checks no round within the budget can decide: not extended for, said once.
  const aside = new Set<string>()
  // What the checks judge, learnt from the first probe: the client is judged at that scale.
  let judged: ReadingMetric[] | undefined
  const judgeClient = async (outcome: RunOutcome): Promise<void> => {
    if (!assertions || !clientHealthOf(suiteResult(outcome))?.saturated) return
    if (judged === undefined) {
      const kept = meta.result
      meta.result = suiteResult(outcome)
      judged = (await probeAssertions(meta, assertions)).metrics
      meta.result = kept
    }
    judgeRoundAt(outcome, judged)
  }
  const valid = async (c: BenchConfig): Promise<{ outcome: RunOutcome; invalid?: string }> => {
    const measured = await measureValid(
      c,
      options.clientCheck === 'fail' ? options.retryInvalid : 0,
      measure,
      judgeClient,
    )
    if (!measured.invalid || options.clientCheck === 'fail') return measured
    warnings.push(`client self-check: ${measured.invalid}`)
    return { outcome: measured.outcome }
  }
  for (let round = 0; ; round++) {
    const roundConfig: BenchConfig =
      round === 0
        ? config
        : { ...config, numPrompts: size, seed: config.seed + round, numWarmups: 0, readyCheckTimeoutS: 0 }
    const measured = await valid(roundConfig)
    rounds.push(measured.outcome)
    invalid ??= measured.invalid
    requests += measured.outcome.records.length
    seconds += measured.outcome.result.duration
    merged = mergeRounds(config, rounds)
    meta.result = suiteResult(merged)
    meta.kind = merged.kind
    meta.interrupted = merged.interrupted
    // A multi-turn run's records are conversations: it is judged on its one round.
    if (
      merged.interrupted ||
      invalid ||
      !assertions ||
      merged.result.completed === 0 ||
      plan.kind === 'multi-turn'
    )
      break
    const probe = await probeAssertions(meta, assertions)
    judged ??= probe.metrics
    wantsBaseline = probe.wantsBaseline
    if (probe.undecided.length === 0 || (options.abortOnFail && probe.failed)) break
    const requestsLeft = budget.rounds > rounds.length ? budget.requests - requests : 0
    // Seconds per request so far sizes the next round within the seconds budget.
    const secondsLeft = Math.floor(((budget.seconds - seconds) * requests) / Math.max(seconds, 1e-9))
    const affordable = Math.max(0, Math.min(requestsLeft, secondsLeft))
    // Every check that the budget can still decide is served; one that it cannot is set aside
    // and named once, so it neither blocks the others nor stays silent.
    const extension = planExtension(probe.undecided, requests + affordable, aside)
    for (const { key, note } of extension.setAside) {
      aside.add(key)
      warnings.push(note)
    }
    if (!(affordable >= 1) || extension.served === 0) break
    size = Math.min(
      affordable,
      Math.max(Math.ceil(config.numPrompts / 2), extension.neededRequests - requests),
    )
  }
  assert(merged, 'runInRounds measured no round. This is a bug in servebench.')
  const outcome = merged
  const baselineRuns: ServeBenchResult[] = []
  if (wantsBaseline && !invalid && !outcome.interrupted) {
    // Replicates of the whole first round with seeds of their own, so a warm prefix cache on the
    // server does not make them faster than the runs they will be compared with.
    for (let i = 1; i < options.baselineRuns; i++) {
      const replicate = await valid({ ...config, seed: config.seed + 1000 + i })
      if (replicate.invalid) {
        invalid = replicate.invalid
        break
      }
      baselineRuns.push(suiteResult(replicate.outcome))
    }
  }
  return { outcome, rounds: rounds.length, baselineRuns, warnings, ...(invalid ? { invalid } : {}) }
}

async function measureValid(
  config: BenchConfig,
  retries: number,
  measure: MeasureRound,
  judgeClient: (outcome: RunOutcome) => Promise<void>,
): Promise<{ outcome: RunOutcome; invalid?: string }> {
  for (let attempt = 0; ; attempt++) {
    // A retry gets prompts of its own: the same ones again would hit the server's prefix cache.
    const outcome = await measure(attempt === 0 ? config : { ...config, seed: config.seed + 500 + attempt })
    await judgeClient(outcome)
    const health = clientHealthOf(suiteResult(outcome))
    if (!health?.saturated || outcome.interrupted) return { outcome }
    if (attempt >= retries) return { outcome, invalid: health.reasons.join('; ') }
  }
}

interface Probe {
  /** Each check still inconclusive, with the requests it says would decide it. */
  undecided: UndecidedCheck[]
  /** The latencies the checks judge (the client self-check's reading scale). */
  metrics: ReadingMetric[]
  failed: boolean
  /** A `toMatchBaseline` would record a new baseline. */
  wantsBaseline: boolean
}

// The assertions in probe mode: matchers record their verdicts and let the code go on; any other
// failed expectation ends the probe and is reported by the final, real pass.
async function probeAssertions(
  meta: ServeBenchMeta,
  assertions: (result: ServeBenchResult) => void | Promise<void>,
): Promise<Probe> {
  meta.verdicts = []
  meta.probing = true
  try {
    await assertions(meta.result as ServeBenchResult)
  } catch {
    // The final pass reports it.
  } finally {
    delete meta.probing
  }
  const verdicts: Verdict[] = meta.verdicts
  meta.verdicts = []
  const undecided = verdicts.flatMap((v) =>
    v.checks
      .filter((c) => c.verdict === 'inconclusive')
      .map((check) => ({
        matcher: v.matcher,
        check,
        neededRequests: check.neededRequests ?? Number.POSITIVE_INFINITY,
      })),
  )
  return {
    undecided,
    metrics: readingMetricsOf(verdicts.flatMap((v) => v.checks)),
    failed: verdicts.some((v) => v.checks.some((c) => c.verdict === 'fail')),
    wantsBaseline: verdicts.some((v) => v.matcher === 'toMatchBaseline' && v.recording === true),
  }
}

/**
 * The result a suite's checks and assertions get. A multi-turn run's (`datasets.multiTurn()`,
 * @experimental) is handed over as a generation result: it has the keys the checks read
 * (`completed`, `failed`, `duration`, the statistics, the per-request arrays), not Python's setup
 * keys. `ServeBenchResult` is public; naming the multi-turn shape in it is a change of its own.
 */
export function suiteResult(run: RunResult): ServeBenchResult {
  return run.kind === 'multi-turn' ? (run.result as unknown as BenchResult) : run.result
}
