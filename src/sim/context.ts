import type { SimEngine } from './engine.ts'
import type { FaultInjector } from './faults.ts'
import type { ResolvedSimOptions } from './options.ts'
import type { SimMetrics } from './sim-metrics.ts'
import type { TimingRecorder } from './timing-record.ts'
import type { WordSource } from './words.ts'

/** Counters behind `SimServer.stats()` that the engine does not keep itself. */
export interface SimCounters {
  requestsReceived: number
  requestsFinished: number
  requestsAborted: number
  /** Generation requests by the `model` they named (a LoRA adapter name counts apart). */
  requestsByModel: Record<string, number>
}

/** Everything a route handler needs; one per server. */
export interface SimContext {
  readonly options: ResolvedSimOptions
  readonly engine: SimEngine
  readonly metrics: SimMetrics
  /** Present when `recordTimings` is on. */
  readonly timings: TimingRecorder | undefined
  readonly words: WordSource
  readonly counters: SimCounters
  /** Picks the injected faults of each generation request. */
  readonly faults: FaultInjector
  /** Process-unique id for requests without `x-request-id`. */
  nextRequestNumber(): number
}
