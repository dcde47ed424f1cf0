import { ConfigError, type ConfigIssue } from '../errors.ts'
import { type CustomAudioDatasetSpec, resolveCustomAudioSpec } from './audio-datasets-config.ts'
import type {
  BackendName,
  BenchConfig,
  DatasetConfig,
  GoodputConfig,
  LoadConfig,
  PercentileMetric,
  RandomDatasetConfig,
  SamplingParams,
} from './bench-config.ts'
import { type CustomImageDatasetSpec, resolveCustomImageSpec } from './custom-image-config.ts'
import {
  DEFAULT_ENDPOINT_PATHS,
  DEFAULT_POOLING_PERCENTILE_METRICS,
  defaultBenchConfig,
  forcesIgnoreEos,
  POOLING_BACKENDS,
} from './defaults.ts'
import { type HubDatasetSpec, isHubDatasetSpec, resolveHubDatasetSpec } from './hub-datasets-dsl.ts'
import { isLocalDatasetSpec, type LocalDatasetSpec, resolveLocalDatasetSpec } from './local-datasets-dsl.ts'
import { type MultiTurnDatasetSpec, resolveMultiTurnSpec } from './multi-turn-dsl.ts'
import { type RandomMmDatasetSpec, resolveRandomMmSpec } from './random-mm-dsl.ts'
import { type RandomRerankDatasetSpec, resolveRandomRerankSpec } from './random-rerank-dsl.ts'
import { checkLoraModules } from './resolve-model-flags.ts'
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

/** Options of `datasets.random`. */
export interface RandomDatasetOptions {
  /** Prompt tokens per request. @default 1024 */
  inputLen?: number
  /** Output tokens asked per request (`max_tokens`). @default 128 */
  outputLen?: number
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Shared prefix tokens. @default 0 */
  prefixLen?: number
  /** Length spread: one number for both, or per side. @default 0 */
  rangeRatio?: number | { input: number; output: number }
  /** Prompts per request (embeddings batch). @default 1 */
  batchSize?: number
  /** Send token-id arrays instead of text. @default false */
  promptTokenIds?: boolean
}

/** A tagged dataset, as `datasets.<name>(...)` returns it. */
export interface RandomDatasetSpec extends RandomDatasetOptions {
  readonly kind: 'random'
}
export type DatasetSpec =
  | RandomDatasetSpec
  | LocalDatasetSpec
  | RandomMmDatasetSpec
  | HubDatasetSpec
  | RandomRerankDatasetSpec
  | MultiTurnDatasetSpec
  | CustomAudioDatasetSpec
  | CustomImageDatasetSpec

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
  /** @default endpoint({}) */
  endpoint?: EndpointSpec
  /** @default datasets.random() */
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
  /** `ignore_eos` (`--ignore-eos`). @default true for random, random-mm and timed traces (as Python forces it), else false */
  ignoreEos?: boolean
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
  /** Vitest timeout of this benchmark in ms. @default the project's testTimeout */
  timeoutMs?: number
  /**
   * How its checks are decided: the budget of extra rounds, the inconclusive policy, retries of an
   * invalid run, baseline runs. Not part of `BenchConfig` or its fingerprint; see
   * docs/statistics.md. @default see `VerdictOptions`
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
  /** Environment for `OPENAI_API_KEY`. */
  env?: Record<string, string | undefined>
}

/**
 * Turns DSL options into a validated {@link BenchConfig}. Throws one {@link ConfigError} that lists
 * every problem, each path starting at the benchmark: `serveBench('short chat').load.rate`.
 */
export function benchConfigFromDsl(options: ServeBenchOptions, ctx: DslContext): BenchConfig {
  const issues: ConfigIssue[] = []
  const at = (path: string): string => `serveBench('${ctx.name}').${path}`
  const config: BenchConfig = defaultBenchConfig()
  const ep = options.endpoint ?? { kind: 'endpoint' }

  const backend = ep.backend ?? config.endpoint.backend
  if (!(backend in DEFAULT_ENDPOINT_PATHS)) {
    issues.push({
      path: at('endpoint.backend'),
      message: `must be one of ${listOf(Object.keys(DEFAULT_ENDPOINT_PATHS))} (got '${backend}')`,
    })
  }
  const baseUrl = ep.baseUrl ?? ctx.defaultBaseUrl
  if (baseUrl === undefined) {
    issues.push({
      path: at('endpoint.baseUrl'),
      message:
        'is not set; set it, set SERVEBENCH_BASE_URL, or add the servebench() plugin to run the simulator',
    })
  } else if (!/^https?:\/\/[^/]+/.test(baseUrl)) {
    issues.push({ path: at('endpoint.baseUrl'), message: `must be an http(s) URL (got '${baseUrl}')` })
  }
  const apiKey = ep.apiKey ?? ctx.env?.OPENAI_API_KEY
  config.endpoint = {
    backend,
    baseUrl: (baseUrl ?? '').replace(/\/+$/, ''),
    endpointPath: ep.endpointPath ?? DEFAULT_ENDPOINT_PATHS[backend] ?? '/v1/completions',
    headers: { ...ep.headers },
    insecure: ep.insecure ?? false,
    ...(ep.model !== undefined ? { model: ep.model } : {}),
    ...(ep.servedModelName !== undefined ? { servedModelName: ep.servedModelName } : {}),
    ...(apiKey ? { apiKey } : {}),
  }
  if (ep.loraModules !== undefined) {
    const assignment = ep.loraAssignment ?? 'random'
    if (assignment !== 'random' && assignment !== 'round-robin') {
      issues.push({
        path: at('endpoint.loraAssignment'),
        message: `must be 'random' or 'round-robin' (got '${String(assignment)}')`,
      })
    }
    const modules = checkLoraModules(ep.loraModules, backend, issues, at('endpoint.loraModules'))
    if (modules) config.lora = { modules, assignment }
  }
  const onSimulator = ctx.simulator === true && ep.baseUrl === undefined
  const tokenizerId = ep.tokenizer ?? (onSimulator ? (ctx.simulatorTokenizer ?? 'cl100k_base') : undefined)
  config.tokenizer = {
    ...config.tokenizer,
    mode: ep.tokenizerMode ?? config.tokenizer.mode,
    ...(tokenizerId !== undefined ? { id: tokenizerId } : {}),
  }

  const ds = options.dataset ?? { kind: 'random' }
  if (
    ds.kind !== 'random' &&
    ds.kind !== 'random-mm' &&
    ds.kind !== 'random-rerank' &&
    ds.kind !== 'multi-turn' &&
    ds.kind !== 'custom_audio' &&
    ds.kind !== 'custom_image' &&
    !isLocalDatasetSpec(ds) &&
    !isHubDatasetSpec(ds)
  )
    issues.push({ path: at('dataset'), message: 'must come from datasets.<name>(), e.g. datasets.random()' })
  const numPrompts = ds.numPrompts ?? config.numPrompts
  positiveInt(issues, at('dataset.numPrompts'), numPrompts)
  config.numPrompts = numPrompts
  const multiTurn = ds.kind === 'multi-turn' ? resolveMultiTurnSpec(ds, { issues, at, backend }) : undefined
  if (multiTurn) config.multiTurn = multiTurn.multiTurn
  config.dataset = isHubDatasetSpec(ds)
    ? resolveHubDatasetSpec(ds, issues, at)
    : ds.kind === 'random-rerank'
      ? resolveRandomRerankSpec(ds, { issues, at, backend })
      : ds.kind === 'random-mm'
        ? resolveRandomMmSpec(ds, { issues, at, backend })
        : ds.kind === 'custom_image'
          ? resolveCustomImageSpec(ds, { issues, at, backend })
          : isLocalDatasetSpec(ds)
            ? resolveLocalDatasetSpec(ds, {
                issues,
                at,
                backend,
                ...(options.load ? { loadKind: options.load.kind } : {}),
              })
            : ds.kind === 'custom_audio'
              ? resolveCustomAudioSpec(ds, { issues, at, backend })
              : resolveRandom(ds as RandomDatasetSpec, config.dataset as RandomDatasetConfig, issues, at)
  // A multi-turn spec's lengths are validated by resolveRandom above; its dataset is the random one.
  if (multiTurn) config.dataset = multiTurn.dataset

  config.load = resolveLoad(options.load, issues, at)
  if (options.load?.kind === 'trace') config.dataset = traceReplay(options.load, config.dataset, issues, at)

  if (options.goodput) {
    for (const [k, v] of Object.entries(options.goodput)) {
      if (!['ttft', 'tpot', 'e2el'].includes(k))
        issues.push({ path: at(`goodput.${k}`), message: 'is not a goodput metric; use ttft, tpot or e2el' })
      else positive(issues, at(`goodput.${k}`), v, 'ms')
    }
    config.goodput = { ...options.goodput }
  }
  if (options.percentiles) {
    for (const [i, p] of options.percentiles.entries()) {
      if (!(typeof p === 'number' && p > 0 && p <= 100))
        issues.push({ path: at(`percentiles[${i}]`), message: `must be in (0, 100] (got ${p})` })
    }
    config.metricPercentiles = [...options.percentiles]
  }
  if (options.percentileMetrics) config.percentileMetrics = [...options.percentileMetrics]
  else if (POOLING_BACKENDS.includes(backend))
    config.percentileMetrics = [...DEFAULT_POOLING_PERCENTILE_METRICS]
  config.request = {
    ...config.request,
    ignoreEos: options.ignoreEos ?? forcesIgnoreEos(config.dataset.kind, backend),
    sampling: { ...options.sampling },
    extraBody: { ...options.extraBody },
    ...(options.requestTimeoutS !== undefined ? { timeoutS: options.requestTimeoutS } : {}),
    ...(options.readTimeoutS !== undefined ? { readTimeoutS: options.readTimeoutS } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
  }
  if (options.requestTimeoutS !== undefined)
    positive(issues, at('requestTimeoutS'), options.requestTimeoutS, 's')
  if (options.readTimeoutS !== undefined) positive(issues, at('readTimeoutS'), options.readTimeoutS, 's')
  if (
    options.maxRetries !== undefined &&
    !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0 && options.maxRetries <= 100)
  )
    issues.push({
      path: at('maxRetries'),
      message: `must be an integer from 0 to 100 (got ${String(options.maxRetries)})`,
    })
  for (const key of ['maxFailureRatio', 'failOnErrorRatio'] as const) {
    const v = options[key]
    if (v === undefined) continue
    if (typeof v === 'number' && v >= 0 && v <= 1) config[key] = v
    else
      issues.push({
        path: at(key),
        message: `must be a fraction between 0 and 1, such as 0.05 (got ${String(v)})`,
      })
  }
  config.numWarmups = options.warmups ?? 0
  nonNegativeInt(issues, at('warmups'), config.numWarmups)
  config.seed = options.seed ?? 0
  if (!Number.isInteger(config.seed))
    issues.push({ path: at('seed'), message: `must be an integer (got ${config.seed})` })
  config.readyCheckTimeoutS = options.readyCheckTimeoutS ?? 0
  config.label = options.label ?? ctx.name
  config.metadata = Object.entries(options.metadata ?? {})
  config.disableTqdm = true

  if (issues.length > 0) throw new ConfigError(issues)
  return config
}

/**
 * A stable id of what a benchmark measures: everything that changes the workload, nothing volatile
 * (the simulator's port, request-id prefixes, API keys, output paths).
 */
export function configFingerprint(config: BenchConfig): string {
  return fnv1a(canonicalJson(configWorkload(config)))
}

/** What the fingerprint is made of, as plain JSON: a stale baseline names the fields that changed. */
export function configWorkload(config: BenchConfig): Record<string, unknown> {
  const { endpoint, tokenizer, dataset, numPrompts, seed, load, request, numWarmups, goodput } = config
  return {
    endpoint: { backend: endpoint.backend, path: endpoint.endpointPath, model: endpoint.model ?? null },
    tokenizer: tokenizer.id ?? null,
    dataset,
    numPrompts,
    seed,
    load: { ...load, requestRate: String(load.requestRate), burstiness: String(load.burstiness) },
    request: { ignoreEos: request.ignoreEos, sampling: request.sampling, extraBody: request.extraBody },
    numWarmups,
    goodput: goodput ?? null,
  }
}

function resolveRandom(
  ds: RandomDatasetOptions,
  base: RandomDatasetConfig,
  issues: ConfigIssue[],
  at: (p: string) => string,
): RandomDatasetConfig {
  const rr = ds.rangeRatio ?? 0
  const rangeRatio = typeof rr === 'number' ? { input: rr, output: rr } : rr
  const out: RandomDatasetConfig = {
    kind: 'random',
    inputLen: ds.inputLen ?? base.inputLen,
    outputLen: ds.outputLen ?? base.outputLen,
    prefixLen: ds.prefixLen ?? base.prefixLen,
    rangeRatio,
    batchSize: ds.batchSize ?? base.batchSize,
    promptTokenIds: ds.promptTokenIds ?? base.promptTokenIds,
  }
  positiveInt(issues, at('dataset.inputLen'), out.inputLen)
  positiveInt(issues, at('dataset.outputLen'), out.outputLen)
  nonNegativeInt(issues, at('dataset.prefixLen'), out.prefixLen)
  positiveInt(issues, at('dataset.batchSize'), out.batchSize)
  for (const side of ['input', 'output'] as const) {
    const v = rangeRatio[side]
    if (!(typeof v === 'number' && v >= 0 && v < 1)) {
      issues.push({
        path: at(`dataset.rangeRatio${typeof rr === 'number' ? '' : `.${side}`}`),
        message: `must be in [0, 1) (got ${v})`,
      })
      break
    }
  }
  return out
}

function resolveLoad(
  spec: LoadSpec | undefined,
  issues: ConfigIssue[],
  at: (p: string) => string,
): LoadConfig {
  const inf = Number.POSITIVE_INFINITY
  if (spec === undefined) return { requestRate: inf, burstiness: 1 }
  const cap = (v: number | undefined): { maxConcurrency?: number } => {
    if (v === undefined) return {}
    positiveInt(issues, at('load.maxConcurrency'), v)
    return { maxConcurrency: v }
  }
  switch (spec.kind) {
    case 'poisson': {
      positive(issues, at('load.rate'), spec.rate, 'req/s', true)
      const burstiness = spec.burstiness ?? 1
      if (!(burstiness > 0))
        issues.push({ path: at('load.burstiness'), message: `must be > 0 (got ${burstiness}); 1 is Poisson` })
      return { requestRate: spec.rate, burstiness, ...cap(spec.maxConcurrency) }
    }
    case 'constant':
      positive(issues, at('load.rate'), spec.rate, 'req/s', true)
      return { requestRate: spec.rate, burstiness: inf, ...cap(spec.maxConcurrency) }
    case 'closed':
      positiveInt(issues, at('load.concurrency'), spec.concurrency)
      return { requestRate: inf, burstiness: 1, maxConcurrency: spec.concurrency }
    case 'rampUp': {
      const strategy = spec.strategy ?? 'linear'
      if (strategy !== 'linear' && strategy !== 'exponential') {
        issues.push({
          path: at('load.strategy'),
          message: `must be 'linear' or 'exponential' (got '${strategy}')`,
        })
      }
      positive(issues, at('load.startRps'), spec.startRps, 'req/s', false, strategy === 'linear')
      positive(issues, at('load.endRps'), spec.endRps, 'req/s')
      return {
        requestRate: inf,
        burstiness: 1,
        rampUp: { strategy, startRps: spec.startRps, endRps: spec.endRps },
        ...cap(spec.maxConcurrency),
      }
    }
    case 'trace': {
      const timeScale = spec.timeScale ?? 1
      if (!(typeof timeScale === 'number' && Number.isFinite(timeScale) && timeScale > 0))
        issues.push({
          path: at('load.timeScale'),
          message: `must be a finite number > 0 (got ${String(timeScale)}); 0.5 replays twice as fast`,
        })
      return { requestRate: inf, burstiness: 1, ...cap(spec.maxConcurrency) }
    }
    default:
      issues.push({ path: at('load'), message: 'must come from load.poisson/constant/closed/rampUp/trace()' })
      return { requestRate: inf, burstiness: 1 }
  }
}

// load.trace() keeps the dataset's own timestamps: it needs a self-timed trace, and its time scale
// folds into the seconds per trace unit, so the fingerprint changes with it.
function traceReplay(
  spec: { readonly kind: 'trace' } & TraceLoadOptions,
  dataset: DatasetConfig,
  issues: ConfigIssue[],
  at: (p: string) => string,
): DatasetConfig {
  if (dataset.kind !== 'timed_trace') {
    issues.push({
      path: at('load'),
      message: `load.trace() replays trace timestamps and needs datasets.timedTrace() (got a '${dataset.kind}' dataset)`,
    })
    return dataset
  }
  if (!dataset.selfTimed) {
    issues.push({
      path: at('dataset.selfTimed'),
      message:
        'is false, but load.trace() sends each request at its trace timestamp; drop selfTimed: false or use another load',
    })
    return dataset
  }
  const timeScale = spec.timeScale ?? 1
  return timeScale === 1 ? dataset : { ...dataset, secMultiplier: dataset.secMultiplier * timeScale }
}

function positive(
  issues: ConfigIssue[],
  path: string,
  v: unknown,
  unit: string,
  allowInf = false,
  allowZero = false,
): void {
  const ok =
    typeof v === 'number' &&
    !Number.isNaN(v) &&
    (allowZero ? v >= 0 : v > 0) &&
    (allowInf || Number.isFinite(v))
  if (!ok)
    issues.push({
      path,
      message: `must be a ${allowZero ? 'non-negative' : 'positive'} number of ${unit} (got ${String(v)})`,
    })
}

function positiveInt(issues: ConfigIssue[], path: string, v: unknown): void {
  if (!(Number.isInteger(v) && (v as number) >= 1))
    issues.push({ path, message: `must be an integer of at least 1 (got ${String(v)})` })
}

function nonNegativeInt(issues: ConfigIssue[], path: string, v: unknown): void {
  if (!(Number.isInteger(v) && (v as number) >= 0))
    issues.push({ path, message: `must be an integer of at least 0 (got ${String(v)})` })
}

function listOf(xs: string[]): string {
  return xs.map((x) => `'${x}'`).join(', ')
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`
  }
  return JSON.stringify(v)
}

// 64-bit FNV-1a over UTF-16 units: short, stable, no crypto dependency in the worker.
function fnv1a(s: string): string {
  let h = 0xcbf29ce484222325n
  for (let i = 0; i < s.length; i++) {
    h ^= BigInt(s.charCodeAt(i))
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn
  }
  return h.toString(16).padStart(16, '0')
}
