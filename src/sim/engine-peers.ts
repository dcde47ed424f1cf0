/**
 * How the routes that answer for the whole simulator (`/metrics`, `/servebench/timings`,
 * `/servebench/faults`, `/reset_prefix_cache`) reach every engine: this one alone, or each engine
 * process of a data-parallel simulator (data-parallel.ts), asked through the primary process. Also
 * the messages between the primary and its engine processes (plain data over the IPC channel).
 */
import type { ConfigIssue } from '../errors.ts'
import type { ResolvedFault } from './faults.ts'
import type { MetricFamily } from './metric-families.ts'
import type { SimOptions } from './options.ts'
import type { SimStats } from './sim-stats.ts'
import type { SimRequestTimings } from './timing-record.ts'

/** What one engine is asked on behalf of all. */
export type EngineAsk =
  | { kind: 'metrics' }
  | { kind: 'stats' }
  | { kind: 'timings' }
  | { kind: 'clear-timings' }
  | { kind: 'reset-prefix-cache' }
  | { kind: 'set-faults'; faults: ResolvedFault[] }

/** Each ask's answer from one engine. */
export interface EngineAnswers {
  metrics: MetricFamily[]
  stats: SimStats
  timings: SimRequestTimings[]
  'clear-timings': null
  'reset-prefix-cache': null
  'set-faults': null
}

/** Every engine of the simulator. */
export interface SimPeers {
  /** Asks every engine, answers in engine order. */
  all<A extends EngineAsk>(ask: A): Promise<Array<EngineAnswers[A['kind']]>>
}

/** Primary → engine process. A `connection` message carries the socket as its handle. */
export type ToEngine =
  | { kind: 'start'; options: SimOptions; engine: number; engines: number }
  | { kind: 'connection' }
  | { kind: 'ask'; id: number; ask: EngineAsk }
  | { kind: 'gathered'; id: number; answers: unknown[] }
  | { kind: 'close' }

/** Engine process → primary. */
export type FromEngine =
  | { kind: 'started' }
  | { kind: 'failed'; message: string; issues?: ConfigIssue[] }
  | { kind: 'answer'; id: number; value: unknown }
  | { kind: 'gather'; id: number; ask: EngineAsk }
  | { kind: 'stats'; stats: SimStats }
