/**
 * Plain-data shapes that cross the pool's worker boundary (task meta, provided values), and the
 * one place where servebench augments Vitest's types.
 */

import type {} from 'vitest'
import type { CapacityResultFile } from '../../capacity/capacity-result.ts'
import type { GoodputConfig } from '../../config/bench-config.ts'
import type { EndpointOptions } from '../../config/dsl-options.ts'
import type { VerdictOptions } from '../../config/verdict-options.ts'
import type { PoolingBenchResult } from '../../report/result/pooling-result.ts'
import type { BenchResult } from '../../report/result/result-types.ts'
import type { RunKind } from '../../report/result/run-result.ts'
import type { Verdict } from '../../report/summary/run-summary.ts'
import type { SustainExpectation } from '../runtime/capacity-checks.ts'
import type { BaselineProvenance } from '../runtime/provenance.ts'

// The verdict types are the summary contract's (report/summary/run-summary.ts): the matchers
// record what the reporter writes and every summary renderer reads.
export type { Verdict, VerdictCheck, VerdictMatcher, VerdictValue } from '../../report/summary/run-summary.ts'

/**
 * What a benchmark produces: the generation result, or the pooling shape for the embeddings,
 * pooling and rerank backends (no token stream: no `ttfts`, `itls`, `failed` or output-token keys).
 */
export type ServeBenchResult = BenchResult | PoolingBenchResult

/** Bounds on one latency metric in ms: `mean`, `median`, `std`, `max`, `min`, or any `pNN` (`p99`, `p99.9`). */
export interface LatencyBounds {
  mean?: number
  median?: number
  std?: number
  min?: number
  max?: number
  [percentile: `p${number}`]: number | undefined
}

/** The argument of `toMeetSLO`. Latency bounds in ms are upper limits; throughputs are lower limits. */
export interface SloSpec {
  /** Time to first token, ms. */
  ttft?: LatencyBounds
  /** Time per output token after the first, ms. */
  tpot?: LatencyBounds
  /** Inter-token latency, ms. */
  itl?: LatencyBounds
  /** End-to-end latency, ms. */
  e2el?: LatencyBounds
  /**
   * Time to first token from each request's intended send time (its place in an open-loop
   * schedule), ms: what a user of a server that holds the client back waits. Open loops only.
   */
  intendedTtft?: LatencyBounds
  /** End-to-end latency from the intended send time, ms. Open loops only. */
  intendedE2el?: LatencyBounds
  /** Completed requests per second. */
  requestThroughput?: { min: number }
  /** Output tokens per second. */
  outputThroughput?: { min: number }
  /** Largest fraction of failed requests, 0–1. */
  errorRate?: number
  /** Largest number of failed requests. */
  failed?: number
}

/** The argument of `toHaveGoodput`: a fraction of all requests, and/or good requests per second. */
export interface GoodputExpectation {
  /** Smallest fraction (0–1) of requests that meet the goodput SLO. */
  min?: number
  /** Smallest `request_goodput` in req/s. */
  minRps?: number
  /** SLO to judge requests by, ms. @default the benchmark's `goodput` option */
  slo?: GoodputConfig
}

/** The argument of `toMatchBaseline`. */
export interface BaselineExpectation {
  /**
   * Result keys to compare: `<mean|median|std|pNN>_<ttft|tpot|itl|e2el>_ms`, `request_throughput`,
   * `output_throughput`, `total_token_throughput`.
   * @default ['mean_ttft_ms', 'p99_ttft_ms', 'mean_tpot_ms', 'mean_itl_ms', 'output_throughput']
   */
  metrics?: string[]
  /** Relative change tolerated before a regression can fail, 0–1. @default 0.1 */
  tolerance?: number
  /**
   * Significance level: the interval shown is the (1 − alpha) interval of the change, and a change
   * toward worse is significant when that interval lies entirely on the worse side of zero
   * (one-sided p-value below alpha / 2). @default 0.05
   */
  alpha?: number
}

/** What a serveBench task carries in `task.meta.servebench`. */
export interface ServeBenchMeta {
  /** The benchmark's name as given to `serveBench`. */
  name: string
  /** `configFingerprint` of the resolved configuration; set at collection. */
  fingerprint: string
  /** The benchmark's goodput SLO (ms), the default of `toHaveGoodput`. */
  goodput?: GoodputConfig
  /** The Python-schema result with per-request arrays; set before the assertions run. */
  result?: ServeBenchResult
  /** The shape of `result` (`generation`, `pooling` or `multi-turn`); set with it. */
  kind?: RunKind
  /** The run was stopped before every request was answered. */
  interrupted?: boolean
  /** Why the run is `invalid`: the client self-check's reasons, after the retries. */
  invalid?: string
  /** Rounds the run took to decide its checks (1 when no check needed more). */
  rounds?: number
  /** Set while the assertions run in probe mode between rounds: matchers record, never throw. */
  probing?: boolean
  /** Confidence level of the checks' intervals (`verdicts.confidence`). @default 0.95 */
  confidence?: number
  /** Where the run came from (server, tokenizer, client, servebench): stored with a new baseline. */
  provenance?: BaselineProvenance
  /** The workload behind the fingerprint: a stale baseline names the fields that changed. */
  workload?: Record<string, unknown>
  /** What a check still inconclusive after the rounds does (`verdicts.inconclusive`). @default 'point' */
  inconclusivePolicy?: 'point' | 'fail' | 'warn'
  /** A capacity search's result (`serveBench.capacity`); set before its assertions run. */
  capacity?: CapacityResultFile
  /** Notes that did not fail the benchmark (failures above `maxFailureRatio` under `failOnErrorRatio`). */
  warnings?: string[]
  verdicts: Verdict[]
}

/** Settings the pool hands to its worker through `workerData.servebench`. */
export interface WorkerSettings {
  /** Base URL for benchmarks that set none; undefined when neither option, env nor simulator gives one. */
  baseUrl?: string
  /** `baseUrl` is the embedded simulator. */
  simulator: boolean
  /** Tokenizer encoding of the embedded simulator. */
  simulatorTokenizer: string
  /** The Vitest root: relative dataset paths of suites resolve from it. @default process.cwd() */
  root?: string
  /** The plugin's endpoint defaults (`servebench({ endpoint, model, tokenizer })`), plain JSON. */
  endpointDefaults?: EndpointOptions
}

/** Snapshot-style update mode: Vitest's `snapshotOptions.updateSnapshot`. */
export type UpdateMode = 'all' | 'new' | 'none'

declare module 'vitest' {
  interface TaskMeta {
    servebench?: ServeBenchMeta
  }
  interface ProvidedContext {
    'servebench:update': UpdateMode
    'servebench:ci': boolean
    'servebench:baselineDir': string
    'servebench:root': string
    /** The plugin's defaults of every suite's `verdicts` options. */
    'servebench:verdicts': VerdictOptions
  }
  // biome-ignore lint/suspicious/noExplicitAny: the signature Vitest declares
  interface Matchers<T = any> {
    /** Every bound holds: latency bounds in ms are upper limits, throughputs lower limits. */
    toMeetSLO(slo: SloSpec): T
    /** Enough requests meet the goodput SLO. */
    toHaveGoodput(expectation: GoodputExpectation): T
    /**
     * No metric regressed against the stored baseline beyond tolerance and noise; on a capacity
     * search, the capacity did not drop by more than the tolerance.
     */
    toMatchBaseline(expectation?: BaselineExpectation): T
    /** A capacity search's interval holds the load: `{ requestRate }` or `{ maxConcurrency }`. */
    toSustain(expectation: SustainExpectation): T
  }
}
