/**
 * The options of `serveBench(name, options)`: endpoint, load, and the run-wide fields, types
 * only. Each dataset's options are its module's (`datasets/<family>/<name>.ts`), and `dataset`
 * takes any of them as the registry derives them (a type-only import: config/ loads no dataset
 * module). The DSL door (`options/dsl-door.ts`) maps each field to its `servebench serve` flag;
 * `resolve.ts` validates them.
 */
import type { DatasetSpec, DatasetSpecOf } from '../datasets/registry.ts'
import type { BackendName, GoodputConfig, PercentileMetric, SamplingParams } from './bench-config.ts'
import type { VerdictOptions } from './verdict-options.ts'

/** Where and how to send requests. Every field is optional; see {@link ResolvedEndpoint}. */
export interface EndpointOptions {
  /** API flavour (`--backend`). @default 'openai' */
  backend?: BackendName
  /** Model id sent with each request. @default the first model of `/v1/models` */
  model?: string
  /** Name sent as the request's `model` field instead of `model`. */
  servedModelName?: string
  /** Scheme, host and port. @default plugin `baseUrl` > `SERVEBENCH_BASE_URL` > the embedded simulator */
  baseUrl?: string
  /** Path appended to `baseUrl`. @default the backend's path (`/v1/completions`, `/v1/chat/completions`) */
  endpointPath?: string
  /** Extra request headers. @default {} */
  headers?: Record<string, string>
  /** Sent as `Authorization: Bearer <key>`; never written to results. @default process.env.OPENAI_API_KEY */
  apiKey?: string
  /** HF id, local path or tiktoken encoding name. @default the model id (`cl100k_base` on the simulator) */
  tokenizer?: string
  /** `--tokenizer-mode`. @default 'auto' */
  tokenizerMode?: string
  /** Accept invalid TLS certificates. @default false */
  insecure?: boolean
  /**
   * What carries the streamed requests (`--http-transport`): `'lean'` (servebench's own HTTP/1.1
   * client on node:net/node:tls), `'undici'`, or `'auto'`: lean unless a proxy is set in the
   * environment. See docs/scaling-the-client.md. @default 'auto'
   */
  httpTransport?: 'auto' | 'lean' | 'undici'
  /**
   * LoRA adapter names sent as the `model` field (`--lora-modules`): one per request, or one per
   * conversation with `datasets.multiTurn()`. Not for pooling backends. @default none
   */
  loraModules?: string[]
  /** How adapters are assigned (`--lora-assignment`): `random` (seeded) or `round-robin`. @default 'random' */
  loraAssignment?: 'random' | 'round-robin'
}

/** A tagged endpoint, as `endpoint({...})` returns it. */
export interface EndpointSpec extends EndpointOptions {
  readonly kind: 'endpoint'
}

/** `load.poisson`: Gamma arrivals (burstiness 1 = Poisson). */
export interface PoissonLoadOptions {
  /** Requests per second. */
  rate: number
  /** Gamma shape. @default 1 */
  burstiness?: number
  /** Concurrency cap. @default none */
  maxConcurrency?: number
}
/** `load.constant`: evenly spaced arrivals. */
export interface ConstantLoadOptions {
  /** Requests per second. */
  rate: number
  /** Concurrency cap. @default none */
  maxConcurrency?: number
}
/** `load.closed`: every request queued at t=0, `concurrency` in flight. */
export interface ClosedLoadOptions {
  /** Requests in flight. */
  concurrency: number
}
/** `load.rampUp`: the rate moves from `startRps` to `endRps` over the run. */
export interface RampUpLoadOptions {
  /** @default 'linear' */
  strategy?: 'linear' | 'exponential'
  startRps: number
  endRps: number
  /** Concurrency cap. @default none */
  maxConcurrency?: number
}
/**
 * `load.trace`: replay a timed trace (`datasets.timedTrace()`) at its own timestamps, as
 * `--self-timed` does, optionally faster or slower.
 */
export interface TraceLoadOptions {
  /**
   * Multiplies every gap between trace timestamps: 0.5 replays twice as fast, 2 half as fast.
   * It scales the dataset's `secMultiplier`. @default 1
   */
  timeScale?: number
  /** Concurrency cap; a request due while the cap is reached waits for a free slot. @default none */
  maxConcurrency?: number
}
export type LoadSpec =
  | ({ readonly kind: 'poisson' } & PoissonLoadOptions)
  | ({ readonly kind: 'constant' } & ConstantLoadOptions)
  | ({ readonly kind: 'closed' } & ClosedLoadOptions)
  | ({ readonly kind: 'rampUp' } & RampUpLoadOptions)
  | ({ readonly kind: 'trace' } & TraceLoadOptions)

/** The options of one `serveBench(name, options)`. Every field is optional. */
export interface ServeBenchOptions {
  /** @default endpoint({}), over the plugin's defaults (`servebench({ endpoint, model, tokenizer })`) */
  endpoint?: EndpointSpec
  /** @default datasets.random({ inputLen: 256, outputLen: 64, numPrompts: 50 }), a run of seconds ({@link SUITE_DEFAULT_DATASET}) */
  dataset?: DatasetSpec
  /** @default every request at t=0, no concurrency cap (Python's defaults) */
  load?: LoadSpec
  /** Per-request SLOs in ms for `request_goodput` (`--goodput`). */
  goodput?: GoodputConfig
  /** Percentiles written to the result (`--metric-percentiles`). @default [99] */
  percentiles?: number[]
  /** Metrics those percentiles are written for (`--percentile-metrics`). @default ['ttft', 'tpot', 'itl'] */
  percentileMetrics?: PercentileMetric[]
  /** Sampling parameters sent with each request. @default {} */
  sampling?: SamplingParams
  /** Merged into each request body (`--extra-body`). @default {} */
  extraBody?: Record<string, unknown>
  /** `ignore_eos` (`--ignore-eos`). @default true for random, random-mm and timed traces on vllm, openai and openai-chat (as Python forces it), else false */
  ignoreEos?: boolean
  /**
   * Sum the server's `usage.prompt_tokens_details.cached_tokens` into `total_cached_tokens`
   * (`--report-cached-tokens`; vLLM reports them with `--enable-prompt-tokens-details`). @default false
   */
  reportCachedTokens?: boolean
  /** Label in the result file name and JSON. @default the benchmark's name */
  label?: string
  /** Extra top-level keys of the result JSON (`--metadata`). @default {} */
  metadata?: Record<string, string>
  /** Warm-up requests before measuring (`--num-warmups`). @default 0 */
  warmups?: number
  /** Seed of the dataset and schedule. @default 0 */
  seed?: number
  /** Per-request timeout in seconds. @default none */
  requestTimeoutS?: number
  /** Wait up to this long for the endpoint to answer before sending load; 0 skips. @default 0 */
  readyCheckTimeoutS?: number
  /**
   * Scrape the server's `/metrics` every this many seconds during the run and keep the series in
   * the result under `server_metrics` (docs/reports.md). @default undefined (no scraping)
   */
  serverMetricsIntervalS?: number
  /** Fail a request whose stream stays silent this long, in seconds (`--read-timeout`). @default none */
  readTimeoutS?: number
  /**
   * Retries of a request that failed before its response body (connect error, 429, 5xx), honouring
   * `Retry-After` (`--max-retries`). @default 0
   */
  maxRetries?: number
  /**
   * The benchmark fails when more than this fraction of its requests failed, unless
   * `failOnErrorRatio` is set; then this is only a warning, printed by the reporter
   * (`--max-failure-ratio`). @default 0.05
   */
  maxFailureRatio?: number
  /** The benchmark fails when more than this fraction of its requests failed (`--fail-on-error-ratio`). 1 never fails on the ratio. @default maxFailureRatio */
  failOnErrorRatio?: number
  /**
   * Worker threads that each send and time a share of the requests, with their own connection
   * pools (`--client-threads`); 1 sends from the calling thread. `'auto'` chooses from the cores
   * and the offered load: 1 on a small machine or a light load
   * (docs/scaling-the-client.md). @default 'auto'
   */
  clientThreads?: number | 'auto'
  /** Vitest timeout of this benchmark in ms. @default the project's testTimeout */
  timeoutMs?: number
  /**
   * How its checks are decided: the budget of extra rounds, the inconclusive policy, retries of an
   * invalid run, the client self-check, baseline runs. Not part of `BenchConfig` or its
   * fingerprint; see docs/statistics.md. @default the plugin's `verdicts`, else `VerdictOptions`' defaults
   */
  verdicts?: VerdictOptions
}

/** What the face knows about where it runs. */
export interface DslContext {
  /** The benchmark's path for messages and defaults: `'chat > short chat'`. */
  name: string
  /** Base URL when the endpoint sets none (plugin option, env or simulator). */
  defaultBaseUrl?: string
  /** True when `defaultBaseUrl` is the embedded simulator: its tokenizer is a tiktoken encoding. */
  simulator?: boolean
  /** Tokenizer of the embedded simulator. @default 'cl100k_base' */
  simulatorTokenizer?: string
  /** Environment for `OPENAI_API_KEY` and the proxy variables (`endpoint.httpTransport`). */
  env?: Record<string, string | undefined>
  /** Folder that relative dataset paths resolve from (the Vitest root). @default process.cwd() */
  root?: string
  /** Endpoint fields every benchmark starts from (the plugin's `endpoint`, `model`, `tokenizer`); the suite's win. */
  endpointDefaults?: EndpointOptions
}

/**
 * The dataset of a benchmark that names none: a workload that finishes in seconds, not Python's
 * 1,000 prompts of 1,024 tokens. `datasets.random()` written out keeps Python's defaults.
 */
export const SUITE_DEFAULT_DATASET: DatasetSpecOf<'random'> = {
  kind: 'random',
  inputLen: 256,
  outputLen: 64,
  numPrompts: 50,
}
