import type { BenchConfig } from '../config/bench-config.ts'
import { type RunHooks, type RunOutcome, runBenchmark } from './run-benchmark.ts'

/** Which kind of invocation a config asks for (Rust: lib.rs `run`, §1.12). `--compare` is decided before a config exists. */
export type RunMode = 'single' | 'multi-turn' | 'multi-turn-sweep' | 'sweep' | 'multi-run'

/** Hooks of a mode run: the single-run hooks, plus what the face prints between and after runs. */
export interface ModeHooks extends RunHooks {
  /** Console text between runs (banners, summaries), `\n`-terminated. */
  print(text: string): void
  /** After each run of a sweep or multi-run, with the config that run used (to print and save it). */
  onRunEnd?(outcome: RunOutcome, config: BenchConfig): void | Promise<void>
}

/**
 * Rust's dispatch order: multi-turn (a concurrency sweep of it when `--sweep-max-concurrency` is
 * set), else a concurrency sweep, else a rate sweep, else `--num-runs > 1`, else one run.
 */
export function selectRunMode(config: BenchConfig): RunMode {
  if (config.multiTurn)
    return config.sweep?.parameter === 'max_concurrency' ? 'multi-turn-sweep' : 'multi-turn'
  if (config.sweep) return 'sweep'
  if ((config.numRuns ?? 1) > 1) return 'multi-run'
  return 'single'
}

/** One run of a config; multi-turn configs go to the multi-turn runner inside `runBenchmark`. */
export function runOnce(config: BenchConfig, hooks: RunHooks): Promise<RunOutcome> {
  return runBenchmark(config, hooks)
}
