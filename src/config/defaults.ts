import type { BackendName, BenchConfig, PercentileMetric } from './bench-config.ts'

/** Default endpoint path of each backend (Python `--endpoint` defaults per backend). */
export const DEFAULT_ENDPOINT_PATHS: { readonly [K in BackendName]: string } = {
  vllm: '/v1/completions',
  openai: '/v1/completions',
  'openai-chat': '/v1/chat/completions',
}

/** Python `--percentile-metrics` default for generation backends. */
export const DEFAULT_PERCENTILE_METRICS: readonly PercentileMetric[] = ['ttft', 'tpot', 'itl']

/** Python defaults (V-ref parser) for everything a run needs; faces override what the user set. */
export function defaultBenchConfig(): BenchConfig {
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
    },
    numWarmups: 0,
    readyCheckTimeoutS: 0,
    percentileMetrics: [...DEFAULT_PERCENTILE_METRICS],
    metricPercentiles: [99],
    metadata: [],
    output: { saveResult: false, saveDetailed: false, appendResult: false },
    disableTqdm: false,
  }
}

/** Python: `bench-<first 8 hex of a uuid4>-`. */
export function defaultRequestIdPrefix(): string {
  return `bench-${crypto.randomUUID().slice(0, 8)}-`
}
