import type { BackendName, BenchConfig, DatasetConfig, PercentileMetric } from './bench-config.ts'

/** Default endpoint path of each backend (Python `--endpoint` defaults per backend). */
export const DEFAULT_ENDPOINT_PATHS: { readonly [K in BackendName]: string } = {
  vllm: '/v1/completions',
  openai: '/v1/completions',
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  'openai-audio': '/v1/audio/transcriptions',
  'openai-embeddings': '/v1/embeddings',
  'openai-embeddings-chat': '/v1/embeddings',
  'openai-embeddings-clip': '/v1/embeddings',
  'openai-embeddings-vlm2vec': '/v1/embeddings',
  'infinity-embeddings': '/embeddings',
  'infinity-embeddings-clip': '/embeddings',
  'vllm-pooling': '/pooling',
  'vllm-rerank': '/v1/rerank',
}

/**
 * Python's `OPENAI_COMPATIBLE_BACKENDS`: the backends whose request function is the completions or
 * the chat one. Only these get a forced `ignore_eos` and accept the sampling flags.
 */
export const OPENAI_COMPATIBLE_BACKENDS: readonly BackendName[] = ['vllm', 'openai', 'openai-chat']

/** Python `--percentile-metrics` default for pooling backends: only E2EL exists. */
export const DEFAULT_POOLING_PERCENTILE_METRICS: readonly PercentileMetric[] = ['e2el']

/** Python `--percentile-metrics` default for generation backends. */
export const DEFAULT_PERCENTILE_METRICS: readonly PercentileMetric[] = ['ttft', 'tpot', 'itl']

/** Failure fraction above which `servebench serve` warns (`--max-failure-ratio`) and a Vitest benchmark fails. */
export const DEFAULT_MAX_FAILURE_RATIO = 0.05

/** Python defaults (the parser of vllm/benchmarks/serve.py) for everything a run needs; faces override what the user set. */
// The dataset type stays `random` so callers can set its fields without narrowing.
export function defaultBenchConfig(): BenchConfig & { dataset: Extract<DatasetConfig, { kind: 'random' }> } {
  return {
    endpoint: {
      backend: 'openai',
      baseUrl: 'http://127.0.0.1:8000',
      endpointPath: DEFAULT_ENDPOINT_PATHS.openai,
      headers: {},
      insecure: false,
    },
    tokenizer: { mode: 'auto', trustRemoteCode: false, skipInit: false },
    dataset: {
      kind: 'random',
      inputLen: 1024,
      outputLen: 128,
      prefixLen: 0,
      rangeRatio: { input: 0, output: 0 },
      batchSize: 1,
      promptTokenIds: false,
    },
    numPrompts: 1000,
    seed: 0,
    load: { requestRate: Number.POSITIVE_INFINITY, burstiness: 1 },
    request: {
      ignoreEos: false,
      sampling: {},
      extraBody: {},
      requestIdPrefix: defaultRequestIdPrefix(),
      maxRetries: 0,
    },
    numWarmups: 0,
    readyCheckTimeoutS: 0,
    percentileMetrics: [...DEFAULT_PERCENTILE_METRICS],
    metricPercentiles: [99],
    metadata: [],
    output: { saveResult: false, saveDetailed: false, appendResult: false },
    disableTqdm: false,
    maxFailureRatio: DEFAULT_MAX_FAILURE_RATIO,
    clientCheck: 'fail',
    clientThreads: 'auto',
    numRuns: 1,
  }
}

/** Python: `bench-<first 8 hex of a uuid4>-`. */
export function defaultRequestIdPrefix(): string {
  return `bench-${crypto.randomUUID().slice(0, 8)}-`
}

/** Datasets for which Python forces `ignore_eos` on OpenAI-compatible (generation) backends. */
const IGNORE_EOS_DATASETS: ReadonlySet<string> = new Set(['random', 'random-mm', 'timed_trace'])

/**
 * Python: `ignore_eos` is forced for random, random-mm and timed_trace on the OpenAI-compatible
 * backends (`vllm`, `openai`, `openai-chat`); `openai-responses` and `openai-audio` send it only
 * with `--ignore-eos`.
 */
export function forcesIgnoreEos(datasetKind: string, backend: BackendName): boolean {
  return IGNORE_EOS_DATASETS.has(datasetKind) && OPENAI_COMPATIBLE_BACKENDS.includes(backend)
}
