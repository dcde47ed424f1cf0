import type { HttpClient } from '../backends/http.ts'
import type { RequestRecord } from '../config/records.ts'
import type { ClientHealthSummary } from '../metrics/client-health.ts'
import type { RunResult } from '../report/result/run-result.ts'
import type { RetryStats } from './retry.ts'

export interface RunHooks {
  /** Aborting stops new sends, drains in-flight requests briefly, and still returns what was measured. */
  signal?: AbortSignal
  /** A second interrupt: abort the requests in flight now instead of after the drain time. */
  forceSignal?: AbortSignal
  /** Reuse one client across runs to keep its connections warm; the run closes only a client it created. */
  httpClient?: HttpClient
  /**
   * Called after each measured request; `total` is the number scheduled, `request` the requests
   * still in flight and the TTFT of the one that ended (when it succeeded and streamed).
   */
  onRequestEnd?(done: number, total: number, request?: RequestProgress): void
  /** Progress lines, as Python prints them (`Starting main benchmark run...`). */
  log?(line: string): void
}

/** What the live progress learns of each request that ends. */
export interface RequestProgress {
  /** Requests sent and not yet answered. */
  inFlight: number
  /** Whether the request that ended succeeded: the rate counts these, as the result's throughput does. */
  success: boolean
  /** Since the timed run started, s: the origin of the result's benchmark duration. */
  elapsedS: number
  /** Time to first token of the request that ended, s; absent when it failed or did not stream. */
  ttftS?: number
  /** A pooling request's latency, s (pooling runs have no first token); absent when it failed. */
  e2elS?: number
}

/** What every run gives back besides its result. */
export interface RunOutcomeBase {
  /** One per request sent, in dispatch order (a multi-turn run: per turn, by conversation). */
  records: RequestRecord[]
  /** True when the signal stopped the run before every request was sent and answered. */
  interrupted: boolean
  /** Retries of the timed run (`--max-retries`); all 0 without it. */
  retries: RetryStats
  /**
   * The client self-check of the timed run (also in the result as `client_health`); absent with
   * `--client-check off`. `saturated` means the client, not the server,
   * was the bottleneck: its latencies do not measure the server.
   * @experimental
   */
  clientHealth?: ClientHealthSummary
  /** When the timed run started and ended (absent for multi-turn and merged rounds). */
  clock?: RunClock
  /** `--segment`: each record's index in the whole schedule (records hold this segment's share only). */
  scheduleIndexes?: number[]
}

/** The clock of a timed run, so runs of other processes can be laid on one time line (`servebench merge`). */
export interface RunClock {
  /** `Date.now()` read at `startS`. */
  startEpochMs: number
  /** Monotonic seconds (`performance.now() / 1000`), as the records' times. */
  startS: number
  endS: number
}

/**
 * A finished run: its result, tagged by shape (`kind`: `generation`, `pooling` or `multi-turn`;
 * see {@link RunResult}), with its records, retries and client self-check.
 */
export type RunOutcome = RunResult & RunOutcomeBase
