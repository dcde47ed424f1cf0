import type { MultiTurnBenchResult } from './multi-turn.ts'
import type { PoolingBenchResult } from './pooling-result.ts'
import type { BenchResult } from './result-types.ts'

/**
 * A run's result, tagged with its shape: a generation run (Python's generation keys), a pooling run
 * (embeddings, pooling, rerank: Python's `EmbedBenchmarkMetrics` keys, no `failed` or output-token
 * keys) or a multi-turn run (Rust's multi-turn keys, `mode: 'multi_turn'`). Branch on `kind`.
 */
export type RunResult =
  | { kind: 'generation'; result: BenchResult }
  | { kind: 'pooling'; result: PoolingBenchResult }
  | { kind: 'multi-turn'; result: MultiTurnBenchResult }

/** The `kind` of a {@link RunResult}. */
export type RunKind = RunResult['kind']

/** Any result object a run gives, whatever its shape. */
export type AnyBenchResult = RunResult['result']
