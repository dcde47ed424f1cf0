/**
 * One benchmark run in three stages: `prepareRun` (model, tokenizer, dataset, ready check,
 * warm-ups, schedule), the measure stage (the timed requests, wrapped in the run extras: profiler,
 * `/metrics` snapshots, probe) and the summarise stage (metrics and result). Every run mode (a
 * single run, each sweep point, each `--num-runs` run, multi-turn, each Vitest round) goes through
 * here. Python: main_async + benchmark (vllm/benchmarks/serve.py); Rust: lib.rs run → benchmark.rs.
 */
import type { BenchConfig } from '../config/bench-config.ts'
import { type MeasureRequests, measureRequests } from './measure.ts'
import { measureConversations } from './measure-conversations.ts'
import { type PreparedRequests, prepareRun } from './prepare.ts'
import type { PreparedConversations } from './prepare-conversations.ts'
import { redactDeep, redactError, secretsOf } from './redact.ts'
import { startRunExtras } from './run-extras.ts'
import type { RunHooks, RunOutcome } from './run-types.ts'
import { finishExtras, startExtrasUnlessStopped } from './signals.ts'
import { summariseConversations, summariseRequests } from './summarise.ts'

export type { RequestProgress, RunHooks, RunOutcome } from './run-types.ts'

/** One benchmark run of `config`: prepare → measure → summarise, secrets masked in all it gives back. */
export function runBenchmark(config: BenchConfig, hooks: RunHooks = {}): Promise<RunOutcome> {
  return runStages(config, hooks, measureRequests)
}

/**
 * {@link runBenchmark} with the measure stage of request runs given: the seam where another way of
 * sending (client threads) plugs in. Multi-turn runs keep their own measure stage.
 */
export async function runStages(
  config: BenchConfig,
  hooks: RunHooks,
  measure: MeasureRequests,
): Promise<RunOutcome> {
  const secrets = secretsOf(config.endpoint)
  let outcome: RunOutcome
  try {
    const plan = await prepareRun(config, hooks)
    try {
      outcome =
        plan.kind === 'conversations'
          ? await runConversations(plan, hooks)
          : await runRequests(plan, hooks, measure)
    } finally {
      await plan.close()
    }
  } catch (error) {
    // The API key and --header values never reach a printed error.
    throw redactError(error, secrets)
  }
  // One redaction pass over all a run gives back: a server may echo a key in any text.
  redactDeep(outcome.result, secrets)
  redactDeep(outcome.records, secrets)
  return outcome
}

async function runRequests(
  plan: PreparedRequests,
  hooks: RunHooks,
  measure: MeasureRequests,
): Promise<RunOutcome> {
  const stop = hooks.signal
  const extras = await startExtrasUnlessStopped(stop, {
    config: plan.config,
    isPooling: plan.task === 'pooling',
    log: plan.log,
    sendProbe: plan.sendProbe,
  })
  const measured = await measure(plan, hooks)
  const extra = await finishExtras(stop, extras, {
    startS: measured.startS,
    durationS: measured.endS - measured.startS,
    records: measured.records,
    ratesPerS: plan.ratesPerS,
  })
  return summariseRequests(plan, measured, extra)
}

async function runConversations(plan: PreparedConversations, hooks: RunHooks): Promise<RunOutcome> {
  const extras = await startRunExtras({
    config: plan.config,
    isPooling: false,
    log: plan.log,
    sendProbe: plan.sendProbe,
  })
  const measured = await measureConversations(plan, hooks)
  const extra = await extras.finish({
    startS: measured.startS,
    durationS: measured.endS - measured.startS,
    records: measured.records,
    ratesPerS: [],
  })
  return summariseConversations(plan, measured, extra)
}
