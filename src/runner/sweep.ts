import type { BenchConfig, SweepConfig } from '../config/bench-config.ts'
import { formatSweepSummary, type SweepPoint, sweepBanner, sweepPointBanner } from '../report/result/sweep.ts'
import { runBenchmark } from './run-benchmark.ts'
import type { ModeHooks, RunPlan } from './run-plan.ts'
import type { RunOutcome } from './run-types.ts'

/** A finished sweep: one point per value run, in order. */
export interface SweepOutcome {
  sweep: SweepConfig
  points: SweepPoint[]
  outcomes: RunOutcome[]
  /** A run was interrupted; the points after it were not run. */
  interrupted: boolean
}

/** The config of one sweep point: the swept parameter set, the prompt count scaled when asked. */
export function sweepPointConfig(config: BenchConfig, sweep: SweepConfig, value: number): BenchConfig {
  const point: BenchConfig = { ...config, load: { ...config.load } }
  delete point.sweep
  if (sweep.parameter === 'request_rate') {
    point.load.requestRate = value
    return point
  }
  point.load.maxConcurrency = value
  if (sweep.numPromptsFactor !== undefined) point.numPrompts = value * sweep.numPromptsFactor
  // Rust: a multi-turn sweep varies the in-flight limit across conversations.
  if (point.multiTurn) point.multiTurn = { ...point.multiTurn, concurrency: value }
  return point
}

/**
 * `--sweep-max-concurrency` / `--sweep-request-rate`: one full run per value, each printed as a
 * normal run, then the summary table. Stops at an interrupted point. Rust: sweep.rs.
 */
export async function runSweep(
  plan: Pick<Extract<RunPlan, { kind: 'sweep' }>, 'config' | 'sweep'>,
  hooks: ModeHooks,
): Promise<SweepOutcome> {
  const { config, sweep } = plan
  hooks.print(sweepBanner(sweep.parameter, sweep.values))
  const points: SweepPoint[] = []
  const outcomes: RunOutcome[] = []
  let interrupted = false
  for (let i = 0; i < sweep.values.length; i++) {
    const value = sweep.values[i]!
    hooks.print(sweepPointBanner(sweep.parameter, value, i + 1, sweep.values.length))
    const pointConfig = sweepPointConfig(config, sweep, value)
    const outcome = await runBenchmark(pointConfig, hooks)
    await hooks.onRunEnd?.(outcome, pointConfig)
    points.push({ value, result: outcome.result })
    outcomes.push(outcome)
    if (outcome.interrupted || hooks.signal?.aborted) {
      interrupted = true
      break
    }
  }
  // --sweep-summary-percentiles picks the extra columns; without it, the run's own percentiles.
  const percentiles = config.sweepSummaryPercentiles ?? config.metricPercentiles
  hooks.print(formatSweepSummary(sweep.parameter, points, percentiles))
  return { sweep, points, outcomes, interrupted }
}
