import type { BenchConfig } from '../config/bench-config.ts'
import {
  formatMultiRunSummary,
  type MultiRunSummary,
  multiRunBanner,
  multiRunRunBanner,
  summariseRuns,
} from '../report/result/multi-run.ts'
import type { AnyBenchResult } from '../report/result/run-result.ts'
import { runBenchmark } from './run-benchmark.ts'
import type { ModeHooks, RunPlan } from './run-plan.ts'
import type { RunOutcome } from './run-types.ts'

export interface MultiRunOutcome {
  results: AnyBenchResult[]
  summary: MultiRunSummary
  interrupted: boolean
}

/**
 * `--num-runs N`: the same run N times in a row, each printed, then per-metric mean, std, min, max
 * and CV. Each run keeps its own seed, as Rust. Rust: multi_run.rs.
 */
export async function runMultiRun(
  plan: Pick<Extract<RunPlan, { kind: 'multi-run' }>, 'config' | 'numRuns'>,
  hooks: ModeHooks,
): Promise<MultiRunOutcome> {
  const { config, numRuns } = plan
  const runConfig: BenchConfig = { ...config, numRuns: 1 }
  hooks.print(multiRunBanner(numRuns))
  const outcomes: RunOutcome[] = []
  let interrupted = false
  for (let i = 1; i <= numRuns; i++) {
    hooks.print(multiRunRunBanner(i, numRuns))
    const outcome = await runBenchmark(runConfig, hooks)
    await hooks.onRunEnd?.(outcome, runConfig)
    outcomes.push(outcome)
    if (outcome.interrupted || hooks.signal?.aborted) {
      interrupted = true
      break
    }
  }
  const results = outcomes.map((o) => o.result)
  // An interrupted run stays in `runs` (marked `interrupted`) but is kept out of the statistics.
  const complete = results.filter((r) => r.interrupted !== true)
  if (complete.length < results.length) {
    hooks.print(
      `servebench: run ${results.length} was interrupted; the statistics cover the ${complete.length} complete runs\n`,
    )
  }
  const summary = summariseRuns(complete)
  hooks.print(formatMultiRunSummary(summary))
  return { results, summary, interrupted }
}
