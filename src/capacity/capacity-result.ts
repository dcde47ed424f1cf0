/**
 * The capacity result file: what `servebench capacity` and a suite's capacity benchmark write, and
 * what the HTML report draws. The `capacity` key is a public contract (tests outside the
 * repository read `value`, `lower`, `upper`, `vary` and `binding_slo`); keys are snake_case like
 * the rest of the result JSON.
 */

import type { Decision } from '../metrics/decide.ts'

/** What the search varies: the Poisson request rate (req/s) or the closed loop's concurrency. */
export type CapacityVary = 'request-rate' | 'max-concurrency'

/** One SLO as written on the command line and in the file: `p99_ttft_ms:500`. */
export interface CapacitySlo {
  /** A key of the result JSON: `p99_ttft_ms`, `mean_tpot_ms`, `request_goodput`, `error_rate`… */
  metric: string
  bound: number
  /** `max`: the metric must stay at or below the bound (latency); `min`: at or above. */
  kind: 'max' | 'min'
}

/** One SLO judged at one probed load. */
export interface CapacityCheck {
  /** The SLO as written, `p99_ttft_ms:500`. */
  slo: string
  verdict: Decision
  estimate: number
  lower: number
  upper: number
  /** For `inconclusive`: about how many requests at this load would decide it. */
  needed_requests?: number
}

/** One probed load: its verdict over all SLOs, each SLO's check, and the run's own result. */
export interface CapacityProbe {
  /** The load probed, in the unit of `vary`. */
  load: number
  /** `pass` when every SLO passes, `fail` when one fails, else `inconclusive`. */
  verdict: Decision
  num_requests: number
  duration_s: number
  checks: CapacityCheck[]
  /** The probe's result in the Python schema, without per-request arrays. */
  result: Record<string, unknown>
  /** Rounds measured at this load: 1, or more when an inconclusive probe was extended. */
  rounds?: number
  /** The client self-check found the client saturated in a round: its latencies measure the client. */
  client_saturated?: boolean
}

export interface CapacityAnswer {
  /**
   * The capacity: where the probes' point estimates cross the binding SLO's bound, between the
   * highest load that passed and the lowest that failed (the highest passing load when none
   * failed); null when even the lowest load breaks an SLO.
   */
  value: number | null
  /**
   * The answer's interval (lower ≤ value ≤ upper): the highest load that passed and the lowest
   * that failed, each a verdict at `confidence`; `upper` is null when the top of the range passed.
   */
  lower: number | null
  upper: number | null
  vary: CapacityVary
  /** `req/s` or `concurrency`. */
  unit: string
  /** The SLO that fails first above the answer, as written (`p99_ttft_ms:500`); null if none. */
  binding_slo: string | null
  confidence: number
}

export interface CapacityResultFile {
  /** Marks the file as a capacity result for readers (`servebench report`). */
  servebench_kind: 'capacity'
  date: string
  backend: string
  model_id: string
  base_url: string
  capacity: CapacityAnswer
  slos: CapacitySlo[]
  /** The per-request limits (ms) a `goodput` SLO counts requests by (`--goodput`). */
  goodput?: { ttft?: number; tpot?: number; e2el?: number }
  /** Probes in the order they were run. */
  probes: CapacityProbe[]
  search: {
    /** Search range and precision as used. */
    min_load: number
    max_load: number
    precision: number
    budget_requests: number
    /** Requests of a probe's first round, and the most at one load. */
    probe_requests?: number
    max_probe_requests?: number
    probed: number
    total_requests: number
    duration_s: number
    /** Why the search stopped: `precision`, `budget`, `top-passes`, `lowest-fails`, `lowest-undecided`, `no-gap`, `interrupted`. */
    stop?: string
  }
}
