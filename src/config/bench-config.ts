/**
 * The resolved configuration of one benchmark run. Every face (CLI flags, the Vitest DSL)
 * builds one of these and calls `runBenchmark(config)`. All fields are validated and complete.
 * Each dataset's config type is its module's (`datasets/<family>/<name>.ts`); `dataset` is their
 * union, which the dataset registry derives (a type-only import: config/ loads no dataset module).
 */
import type { DatasetConfig } from '../datasets/registry.ts'

export type { DatasetConfig } from '../datasets/registry.ts'

/** The pooling backends' names, last in `--backend`'s list: {@link POOLING_BACKENDS}. */
const POOLING_BACKEND_NAMES = [
  'openai-embeddings',
  'openai-embeddings-chat',
  'openai-embeddings-clip',
  'openai-embeddings-vlm2vec',
  'infinity-embeddings',
  'infinity-embeddings-clip',
  'vllm-pooling',
  'vllm-rerank',
] as const

/** `--backend` values the engine knows, in the order `--help` lists them: generation, then pooling. */
export const BACKEND_NAMES = [
  'vllm',
  'openai',
  'openai-chat',
  'openai-responses',
  'openai-audio',
  ...POOLING_BACKEND_NAMES,
] as const
export type BackendName = (typeof BACKEND_NAMES)[number]

/** Backends of Python's `TaskType.POOLING`: one non-streamed answer, pooling metrics and result keys. */
export const POOLING_BACKENDS: readonly BackendName[] = POOLING_BACKEND_NAMES

/** `--percentile-metrics` values, in Python's output order. */
export type PercentileMetric =
  | 'ttft'
  | 'tpot'
  | 'itl'
  | 'e2el'
  | 'client_queue_time'
  | 'e2el_including_client_queue'

export const PERCENTILE_METRICS: readonly PercentileMetric[] = [
  'ttft',
  'tpot',
  'itl',
  'e2el',
  'client_queue_time',
  'e2el_including_client_queue',
]

export interface ResolvedEndpoint {
  backend: BackendName
  /** Scheme, host and port, no trailing slash: `http://127.0.0.1:8000`. */
  baseUrl: string
  /** Path appended to `baseUrl`: `/v1/completions`. */
  endpointPath: string
  /** Model id; undefined means "ask `/v1/models`". */
  model?: string
  /** Sent as the request's `model` field instead of the model id. */
  servedModelName?: string
  /** `--header K=V` pairs, applied after `Authorization`. */
  headers: Record<string, string>
  /** Sent as `Authorization: Bearer <key>` (from `OPENAI_API_KEY` or the DSL). Never written out. */
  apiKey?: string
  /** Accept invalid TLS certificates. */
  insecure: boolean
  /** `--http-transport`: what carries the streamed requests; undefined is `auto`. */
  httpTransport?: HttpTransport
}

/**
 * What carries streamed requests (`--http-transport`): `lean` (backends/lean/: node:net and
 * node:tls with servebench's own HTTP/1.1 reader), `undici`, or `auto`: lean unless a proxy is
 * set in the environment.
 */
export const HTTP_TRANSPORTS = ['auto', 'lean', 'undici'] as const
export type HttpTransport = (typeof HTTP_TRANSPORTS)[number]
/** What a run's streamed requests went through: `--http-transport` with `auto` resolved. */
export type ResolvedHttpTransport = Exclude<HttpTransport, 'auto'>
/** Why `lean` with HTTP_PROXY or HTTPS_PROXY set is refused, after the flag or field's name. */
export const LEAN_WITH_PROXY_MESSAGE =
  "is 'lean', which cannot send through a proxy, and HTTP_PROXY or HTTPS_PROXY is set; use 'auto' or 'undici'"

export interface TokenizerConfig {
  /** HF id, local folder, path to tokenizer.json, or a tiktoken encoding name; undefined = the model id. */
  id?: string
  mode: string
  trustRemoteCode: boolean
  skipInit: boolean
  /** `--chat-template-kwargs`: extra variables of the chat template (`{"enable_thinking": false}`). */
  chatTemplateKwargs?: Record<string, unknown>
}

export interface RampUpConfig {
  strategy: 'linear' | 'exponential'
  startRps: number
  endRps: number
}

export interface LoadConfig {
  /** Requests per second; `Infinity` sends every request at t=0. */
  requestRate: number
  /** Gamma shape; 1 is Poisson, `Infinity` is a constant rate. */
  burstiness: number
  maxConcurrency?: number
  rampUp?: RampUpConfig
}

export interface SamplingParams {
  temperature?: number
  top_p?: number
  top_k?: number
  min_p?: number
  frequency_penalty?: number
  presence_penalty?: number
  repetition_penalty?: number
}

export interface RequestOptions {
  ignoreEos: boolean
  logprobs?: number
  sampling: SamplingParams
  /** `--extra-body`, merged over the sampling params. */
  extraBody: Record<string, unknown>
  /** Request ids are `${requestIdPrefix}${index}`. */
  requestIdPrefix: string
  /** Per-request timeout in seconds; undefined = none (Python: 6 h). */
  timeoutS?: number
  /** Fail a stream that stays silent this long (Python `VLLM_BENCH_SOCK_READ`); undefined = none. */
  readTimeoutS?: number
  /** `--max-retries`: retries of a request that failed before its response body (runner/retry.ts). @default 0 */
  maxRetries: number
}

/** `--goodput` SLOs, milliseconds. */
export interface GoodputConfig {
  ttft?: number
  tpot?: number
  e2el?: number
}

export interface OutputConfig {
  saveResult: boolean
  saveDetailed: boolean
  /** `--report-cached-tokens`: write `total_cached_tokens` and its console line. */
  reportCachedTokens?: boolean
  appendResult: boolean
  resultDir?: string
  resultFilename?: string
  /** `--plot-timeline`: write `<result name>.timeline.html` next to the result. */
  plotTimeline?: boolean
  /** `--timeline-itl-thresholds` in ms, ascending; undefined = 25, 50. */
  timelineItlThresholdsMs?: [number, number]
  /** `--plot-dataset-stats`: write `<result name>.dataset_stats.png` next to the result. */
  plotDatasetStats?: boolean
}

/**
 * An execution segment: this process sends requests `index, index + count, index + 2·count, …` of
 * the one seeded schedule; `servebench merge` joins the `count` segment files.
 */
export interface SegmentConfig {
  /** 0-based, below `count`. */
  index: number
  count: number
  /** Where it was set: `--segment`, `SERVEBENCH_SEGMENT` or `JOB_COMPLETION_INDEX`. */
  source: string
}

/** `--client-check` values. */
export const CLIENT_CHECK_MODES = ['fail', 'warn', 'off'] as const
export type ClientCheckMode = (typeof CLIENT_CHECK_MODES)[number]

export interface BenchConfig {
  endpoint: ResolvedEndpoint
  tokenizer: TokenizerConfig
  dataset: DatasetConfig
  numPrompts: number
  seed: number
  load: LoadConfig
  request: RequestOptions
  numWarmups: number
  /** 0 skips the ready check. */
  readyCheckTimeoutS: number
  percentileMetrics: PercentileMetric[]
  metricPercentiles: number[]
  goodput?: GoodputConfig
  label?: string
  /** `--metadata K=V`, in order, written as top-level string keys. */
  metadata: Array<[string, string]>
  output: OutputConfig
  disableTqdm: boolean
  /**
   * `--server-metrics-interval`: scrape `/metrics` every this many seconds during the timed run
   * into `server_metrics` (docs/reports.md); undefined = no scraping.
   */
  serverMetricsIntervalS?: number
  /** `--max-failure-ratio`: warn above this failed fraction (Vitest: fail). @default 0.05 */
  maxFailureRatio: number
  /** `--fail-on-error-ratio`: the CLI exits 1 above this failed fraction; undefined = never. */
  failOnErrorRatio?: number
  /**
   * `--client-check`: what a saturated client does to the CLI (docs/client-health.md). `fail`
   * exits 4 after writing the result, `warn` only prints the line, `off` skips the self-check.
   * @default 'fail'
   */
  clientCheck: ClientCheckMode
  /**
   * `--client-threads`: worker threads that each send and time a share of the requests, with their
   * own connection pools (runner/threads/); 1 sends from the calling thread. `auto` (or undefined)
   * chooses from the cores and the offered load (runner/threads/auto-threads.ts): 1 on a small
   * machine or a light load.
   * @default 'auto'
   */
  clientThreads: number | 'auto'
  /** `--segment i/n` (or `SERVEBENCH_SEGMENT`, `JOB_COMPLETION_INDEX`): send only this share of the schedule. */
  segment?: SegmentConfig
  /** `--start-at`: wall-clock time (Unix epoch, ms) at which the timed run starts. */
  startAtEpochMs?: number
  /** Rust steady-state window; undefined with `--no-steady-state`. Applies with `--max-concurrency` at rate inf. */
  steadyState?: SteadyStateConfig
  /** `--probe-request-rate`: sequential "Hi" probes per second beside the run; undefined = none. */
  probeRequestRatePerS?: number
  /** `--profile`: POST /start_profile before the run and /stop_profile after it. */
  profile?: boolean
  /** `--multi-turn`: conversations instead of independent requests. */
  multiTurn?: MultiTurnConfig
  /** `--sweep-max-concurrency` / `--sweep-request-rate`: one run per value. */
  sweep?: SweepConfig
  /** `--num-runs`: repeat the run and report mean, std, min, max and CV per metric. @default 1 */
  numRuns: number
  /** `--max-model-len` (Rust): drop requests, or turns, whose prompt plus expected output exceed it. */
  maxModelLen?: number
  /** `--lora-modules` / `--lora-assignment`: the adapter each request (or conversation) names. */
  lora?: LoraConfig
  /** `--reset-prefix-cache` (Rust): POST /reset_prefix_cache before each sweep point. */
  resetPrefixCache?: boolean
  /** `--profile-batch-threshold` / `--profile-duration` (Rust): start profiling once the server runs this many requests. */
  profileThreshold?: ProfileThresholdConfig
  /** `--sweep-summary-percentiles` (Rust): extra percentile columns of the sweep table, also computed per run. */
  sweepSummaryPercentiles?: number[]
}

/** LoRA adapters sent as the request's `model` field (Python `--lora-modules`; Rust `cli.rs`). */
export interface LoraConfig {
  /** Adapter names, in the order given. */
  modules: string[]
  /** `random`: uniform, seeded by `--seed`; `round-robin`: request (or conversation) i takes `modules[i % n]`. */
  assignment: 'random' | 'round-robin'
}

/** Rust threshold profiling: wait for `vllm:num_requests_running >= runningRequests`, then profile `durationS`. */
export interface ProfileThresholdConfig {
  runningRequests: number
  durationS: number
}

/** A sweep over one load parameter (Rust `sweep.rs`). */
export interface SweepConfig {
  parameter: 'max_concurrency' | 'request_rate'
  /** Concurrencies (integers) or rates (`Infinity` allowed), in the order given. */
  values: number[]
  /** Concurrency sweeps: `num_prompts = concurrency × factor`. */
  numPromptsFactor?: number
}

/** `--steady-state-threshold`, `--steady-state-min-window` (Rust). */
export interface SteadyStateConfig {
  /** Fraction of `--max-concurrency` at which the window opens, in (0, 1]. */
  threshold: number
  /** Shorter windows get a warning; undefined = max(10, 0.1 × run duration). */
  minWindowS?: number
}

/**
 * The `--multi-turn*` flags (Rust `multi_turn.rs`), resolved. Conversations are synthetic with the
 * `random` dataset, or read from `sharegpt` / `hf` (then `maxTurns` caps the turns taken, 0 = all).
 */
export interface MultiTurnConfig {
  /** Turns per conversation, before min/max normalisation. */
  numTurns: number
  minTurns: number
  maxTurns: number
  /** Prompt tokens of turns 1+ (`--per-turn-input-len`); 0 = the turn-0 length. */
  perTurnInputLen: number
  /** Most requests in flight across conversations; undefined = `--max-concurrency`, else `--num-prompts`. */
  concurrency?: number
  /** Think time between turns, ms (the concurrency slot is not held). */
  delayMs: number
  /** Share of each message common to every conversation, in [0, 1). */
  prefixGlobalRatio: number
  /** Share of each message common within one conversation, in [0, 1). */
  prefixConversationRatio: number
  /** Keep sending a conversation's later turns after one fails (servebench; Rust stops). */
  continueOnFailure: boolean
}
