import type { BenchConfig, MultiTurnConfig, SweepConfig } from '../config/bench-config.ts'
import type { RunHooks, RunOutcome } from './run-types.ts'

/**
 * What a resolved config asks to run, chosen in one place ({@link planRun}) for the CLI and the
 * Vitest runtime alike. Every kind runs through `runBenchmark` (prepare → measure → summarise):
 * once (`single`, `multi-turn`), once per value (`sweep`), or `numRuns` times (`multi-run`).
 * `--compare` is decided before a config exists.
 */
export type RunPlan =
  | { kind: 'single'; config: BenchConfig }
  | { kind: 'multi-turn'; config: BenchConfig; multiTurn: MultiTurnConfig }
  /** `multiTurn`: a concurrency sweep of a multi-turn run (each point is a multi-turn run). */
  | { kind: 'sweep'; config: BenchConfig; sweep: SweepConfig; multiTurn: boolean }
  | { kind: 'multi-run'; config: BenchConfig; numRuns: number }

/** Hooks of a sweep or multi-run: the single-run hooks, plus what the face prints between and after runs. */
export interface ModeHooks extends RunHooks {
  /** Console text between runs (banners, summaries), `\n`-terminated. */
  print(text: string): void
  /** After each run of a sweep or multi-run, with the config that run used (to print and save it). */
  onRunEnd?(outcome: RunOutcome, config: BenchConfig): void | Promise<void>
}

/**
 * Rust's dispatch order (lib.rs `run`): multi-turn (a concurrency sweep of it when
 * `--sweep-max-concurrency` is set), else a concurrency or rate sweep, else `--num-runs > 1`,
 * else one run.
 */
export function planRun(config: BenchConfig): RunPlan {
  const { multiTurn, sweep } = config
  if (multiTurn) {
    return sweep?.parameter === 'max_concurrency'
      ? { kind: 'sweep', config, sweep, multiTurn: true }
      : { kind: 'multi-turn', config, multiTurn }
  }
  if (sweep) return { kind: 'sweep', config, sweep, multiTurn: false }
  const { numRuns } = config
  if (numRuns > 1) return { kind: 'multi-run', config, numRuns }
  return { kind: 'single', config }
}
