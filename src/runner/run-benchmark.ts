/**
 * One benchmark run in three stages: `prepareRun` (model, tokenizer, dataset, ready check,
 * warm-ups, schedule), the measure stage (the timed requests, wrapped in the run extras: profiler,
 * `/metrics` snapshots and scrape, probe) and the summarise stage (metrics and result). Every run
 * mode (a single run, each sweep point, each `--num-runs` run, multi-turn, each Vitest round) goes
 * through here, and a stop is handled the same in each: the extras give way to it, and what was
 * measured is summarised. Python: main_async + benchmark (vllm/benchmarks/serve.py); Rust: lib.rs
 * run → benchmark.rs, multi_turn.rs.
 */
import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestRecord } from '../config/records.ts'
import { type MeasureRequests, measureStageOf } from './measure.ts'
import { measureConversations } from './measure-conversations.ts'
import { prepareRun } from './prepare.ts'
import { redactDeep, redactError, secretsOf } from './redact.ts'
import type { RunExtrasContext, RunExtrasOutcome } from './run-extras.ts'
import type { RunHooks, RunOutcome } from './run-types.ts'
import { finishExtras, startExtrasUnlessStopped } from './signals.ts'
import { summariseConversations, summariseRequests } from './summarise.ts'

export type { RequestProgress, RunHooks, RunOutcome } from './run-types.ts'

/**
 * One benchmark run of `config`: prepare → measure → summarise, secrets masked in all it gives
 * back. Its requests are sent by the measure stage the config asks for (`--client-threads`).
 */
export function runBenchmark(config: BenchConfig, hooks: RunHooks = {}): Promise<RunOutcome> {
  return runStages(config, hooks, measureStageOf(config))
}

/**
 * {@link runBenchmark} with the measure stage of request runs given: the seam where a way of
 * sending plugs in (this thread's, the client threads', a test's). Multi-turn runs measure their
 * conversations (`measureConversations`) between the same extras.
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
      const extrasOf = {
        config: plan.config,
        isPooling: plan.kind === 'requests' && plan.task === 'pooling',
        log: plan.log,
        sendProbe: plan.sendProbe,
      }
      if (plan.kind === 'conversations') {
        const { measured, extras } = await withExtras(extrasOf, [], hooks, () =>
          measureConversations(plan, hooks),
        )
        outcome = summariseConversations(plan, measured, extras)
      } else {
        const { measured, extras } = await withExtras(extrasOf, plan.ratesPerS, hooks, () =>
          measure(plan, hooks),
        )
        outcome = summariseRequests(plan, measured, extras)
      }
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

/**
 * The measure stage between the run extras: started just before it unless the run is stopped
 * first, finished just after it (given a short time when stopped).
 */
async function withExtras<M extends { startS: number; endS: number; records: readonly RequestRecord[] }>(
  context: RunExtrasContext,
  ratesPerS: readonly number[],
  hooks: RunHooks,
  measure: () => Promise<M>,
): Promise<{ measured: M; extras: RunExtrasOutcome }> {
  const stop = hooks.signal
  const started = await startExtrasUnlessStopped(stop, context)
  const measured = await measure()
  const extras = await finishExtras(stop, started, {
    startS: measured.startS,
    durationS: measured.endS - measured.startS,
    records: measured.records,
    ratesPerS,
  })
  return { measured, extras }
}
