import { ConfigError, type ConfigIssue } from '../errors.ts'
import type { BackendName, BenchConfig, RampUpConfig, SamplingParams } from './bench-config.ts'
import {
  CLIENT_CHECK_MODES,
  HTTP_TRANSPORTS,
  LEAN_WITH_PROXY_MESSAGE,
  POOLING_BACKENDS,
} from './bench-config.ts'
import type { DatasetFlagResolver } from './dataset-flag-checks.ts'
import {
  DEFAULT_ENDPOINT_PATHS,
  DEFAULT_POOLING_PERCENTILE_METRICS,
  defaultBenchConfig,
  forcesIgnoreEos,
  OPENAI_COMPATIBLE_BACKENDS,
} from './defaults.ts'
import {
  parseGoodput,
  parseItlThresholds,
  parseJsonObject,
  parsePercentileMetrics,
  parsePercentiles,
  parseRatio,
} from './flag-parsers.ts'
import { resolveClientFlags } from './resolve-client-flags.ts'
import { resolveModelFlags } from './resolve-model-flags.ts'
import { resolveRunModeFlags } from './resolve-run-modes.ts'

/** The proxy variables backends/proxy.ts reads (aiohttp's `trust_env`). */
export const PROXY_VARIABLES: readonly string[] = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY']

/** Flag values by canonical name, as the CLI parser produces them. */
export type FlagValues = ReadonlyMap<string, string | string[] | true>

/** What a flag that parsed but is not implemented looks like to the resolver. */
export type FlagStatusLookup = (name: string) => 'supported' | 'accepted' | 'planned' | undefined

const BACKENDS = Object.keys(DEFAULT_ENDPOINT_PATHS) as readonly BackendName[]

/** The `--dataset-name` choices and the resolver of each, given by the layer above (`datasets/registry.ts`). */
export interface DatasetResolvers {
  /** Every `--dataset-name` value, aliases included. */
  readonly names: readonly string[]
  /** The resolver of one of `names`. */
  resolverOf(name: string): DatasetFlagResolver
}

/**
 * Turn `vllm bench serve` flags into a validated `BenchConfig`. Every problem is reported at once,
 * each naming its flag and what would be valid. The datasets' own flags are read by the resolver
 * `datasets` gives for `--dataset-name` (config/ knows no dataset module); `options/serve-flags.ts`
 * binds the registry's.
 */
export function resolveFlags(
  flags: FlagValues,
  datasets: DatasetResolvers,
  env: Readonly<Record<string, string | undefined>> = process.env,
  statusOf: FlagStatusLookup = () => 'supported',
): BenchConfig {
  const issues: ConfigIssue[] = []
  const read = createReader(flags, issues)
  const config: BenchConfig = defaultBenchConfig()

  for (const name of flags.keys()) {
    if (statusOf(name) === 'planned') {
      issues.push({
        path: name,
        message: 'is not supported by servebench yet; see docs/cli-flags.md for what is',
      })
    }
  }

  // Endpoint
  const backend = read.choice('--backend', BACKENDS) ?? 'openai'
  const baseUrl =
    read.string('--base-url') ??
    `http://${read.string('--host') ?? '127.0.0.1'}:${read.int('--port', 1, 65_535) ?? 8000}`
  const endpointPath = read.string('--endpoint') ?? DEFAULT_ENDPOINT_PATHS[backend]
  config.endpoint = {
    backend,
    baseUrl: normaliseBaseUrl(baseUrl, endpointPath, issues),
    endpointPath,
    headers: read.pairs('--header', '='),
    insecure: read.bool('--insecure'),
  }
  const httpTransport = read.choice('--http-transport', HTTP_TRANSPORTS)
  if (httpTransport !== undefined) config.endpoint.httpTransport = httpTransport
  // The lean transport has no proxy path.
  if (httpTransport === 'lean' && PROXY_VARIABLES.some((name) => env[name])) {
    issues.push({
      path: '--http-transport',
      message: LEAN_WITH_PROXY_MESSAGE,
    })
  }
  const model = read.string('--model')
  if (model !== undefined) config.endpoint.model = model
  const served = read.string('--served-model-name')
  if (served !== undefined) config.endpoint.servedModelName = served
  const apiKey = env.OPENAI_API_KEY
  if (apiKey) config.endpoint.apiKey = apiKey

  // Tokenizer
  config.tokenizer = {
    mode: read.string('--tokenizer-mode') ?? 'auto',
    trustRemoteCode: read.bool('--trust-remote-code'),
    skipInit: read.bool('--skip-tokenizer-init'),
  }
  const tokenizer = read.string('--tokenizer')
  if (tokenizer !== undefined) config.tokenizer.id = tokenizer
  const chatTemplateKwargs = read.parsed('--chat-template-kwargs', parseJsonObject)
  if (chatTemplateKwargs !== undefined) config.tokenizer.chatTemplateKwargs = chatTemplateKwargs

  // Dataset
  const datasetName = read.choice('--dataset-name', datasets.names) ?? 'random'
  const dataset = datasets.resolverOf(datasetName)(read, { backend, tokenizer: config.tokenizer, issues })
  if (dataset) config.dataset = dataset
  config.numPrompts = read.int('--num-prompts', 1) ?? config.numPrompts
  config.seed = read.int('--seed', 0) ?? config.seed

  // Traffic
  const rate = read.rate('--request-rate', 'must be > 0 or inf')
  const burstiness = read.rate('--burstiness', 'must be > 0 (1 is Poisson, inf is a constant rate)')
  config.load = { requestRate: rate ?? Number.POSITIVE_INFINITY, burstiness: burstiness ?? 1 }
  const maxConcurrency = read.int('--max-concurrency', 1)
  if (maxConcurrency !== undefined) config.load.maxConcurrency = maxConcurrency
  const rampUp = resolveRampUp(read, rate, issues)
  if (rampUp) config.load.rampUp = rampUp
  config.numWarmups = read.int('--num-warmups', 0) ?? 0
  config.readyCheckTimeoutS = read.int('--ready-check-timeout-sec', 0) ?? 0

  // Request content.
  // `'false'` comes only from the DSL's `ignoreEos: false`, which turns off the forced value.
  config.request.ignoreEos =
    read.bool('--ignore-eos') ||
    (flags.get('--ignore-eos') !== 'false' && forcesIgnoreEos(config.dataset.kind, backend))
  const logprobs = read.int('--logprobs', 0)
  if (logprobs !== undefined) config.request.logprobs = logprobs
  config.request.sampling = samplingForBackend(backend, resolveSampling(read), issues)
  config.request.extraBody = read.parsed('--extra-body', parseJsonObject) ?? {}
  config.request.requestIdPrefix = read.string('--request-id-prefix') ?? config.request.requestIdPrefix
  const timeoutS = read.positive('--request-timeout')
  if (timeoutS !== undefined) config.request.timeoutS = timeoutS
  const readTimeoutS = read.positive('--read-timeout')
  if (readTimeoutS !== undefined) config.request.readTimeoutS = readTimeoutS
  const maxRetries = read.int('--max-retries', 0, 100)
  if (maxRetries !== undefined) config.request.maxRetries = maxRetries
  const maxFailureRatio = read.parsed('--max-failure-ratio', parseRatio)
  if (maxFailureRatio !== undefined) config.maxFailureRatio = maxFailureRatio
  const failOnErrorRatio = read.parsed('--fail-on-error-ratio', parseRatio)
  if (failOnErrorRatio !== undefined) config.failOnErrorRatio = failOnErrorRatio
  const clientCheck = read.choice('--client-check', CLIENT_CHECK_MODES)
  if (clientCheck !== undefined) config.clientCheck = clientCheck

  // Metrics
  config.percentileMetrics =
    read.parsed('--percentile-metrics', parsePercentileMetrics) ??
    (POOLING_BACKENDS.includes(backend) ? [...DEFAULT_POOLING_PERCENTILE_METRICS] : config.percentileMetrics)
  config.metricPercentiles = read.parsed('--metric-percentiles', parsePercentiles) ?? config.metricPercentiles
  const goodput = read.parsed('--goodput', parseGoodput)
  if (goodput) config.goodput = goodput

  // Output
  const label = read.string('--label')
  if (label !== undefined) config.label = label
  config.metadata = Object.entries(read.pairs('--metadata', '='))
  config.output = {
    saveResult: read.bool('--save-result'),
    saveDetailed: read.bool('--save-detailed'),
    ...(read.bool('--report-cached-tokens') ? { reportCachedTokens: true } : {}),
    appendResult: read.bool('--append-result'),
  }
  const resultDir = read.string('--result-dir')
  if (resultDir !== undefined) config.output.resultDir = resultDir
  const resultFilename = read.string('--result-filename')
  if (resultFilename !== undefined) config.output.resultFilename = resultFilename
  if (read.bool('--plot-timeline')) config.output.plotTimeline = true
  const itlThresholds = read.parsed('--timeline-itl-thresholds', parseItlThresholds)
  if (itlThresholds !== undefined) config.output.timelineItlThresholdsMs = itlThresholds
  if (read.bool('--plot-dataset-stats')) config.output.plotDatasetStats = true
  const scrapeS = read.positive('--server-metrics-interval')
  if (scrapeS !== undefined) config.serverMetricsIntervalS = scrapeS
  config.disableTqdm = read.bool('--disable-tqdm')
  resolveModelFlags(read, config, issues)
  resolveRunModeFlags(read, config, issues)
  resolveClientFlags(read, config, issues, env)

  if (issues.length > 0) throw new ConfigError(issues)
  return config
}

function resolveRampUp(
  read: Reader,
  rate: number | undefined,
  issues: ConfigIssue[],
): RampUpConfig | undefined {
  const strategy = read.choice('--ramp-up-strategy', ['linear', 'exponential'] as const)
  const startRps = read.number('--ramp-up-start-rps')
  const endRps = read.number('--ramp-up-end-rps')
  if (strategy === undefined) {
    if (startRps !== undefined || endRps !== undefined) {
      issues.push({
        path: '--ramp-up-strategy',
        message: 'is required when --ramp-up-start-rps or --ramp-up-end-rps is set',
      })
    }
    return undefined
  }
  if (startRps === undefined || endRps === undefined) {
    issues.push({
      path: '--ramp-up-strategy',
      message: 'needs both --ramp-up-start-rps and --ramp-up-end-rps',
    })
    return undefined
  }
  if (rate !== undefined && Number.isFinite(rate)) {
    issues.push({
      path: '--request-rate',
      message: 'must be left at inf with --ramp-up-strategy (the ramp sets the rate)',
    })
  }
  if (!(startRps > 0)) issues.push({ path: '--ramp-up-start-rps', message: `must be > 0 (got ${startRps})` })
  if (endRps < startRps) {
    issues.push({
      path: '--ramp-up-end-rps',
      message: `must be >= --ramp-up-start-rps (got ${endRps} < ${startRps})`,
    })
  }
  return { strategy, startRps, endRps }
}

function resolveSampling(read: Reader): SamplingParams {
  const sampling: SamplingParams = {}
  const pairs: Array<[keyof SamplingParams, number | undefined]> = [
    ['temperature', read.number('--temperature')],
    ['top_p', read.number('--top-p')],
    ['top_k', read.int('--top-k', -1)],
    ['min_p', read.number('--min-p')],
    ['frequency_penalty', read.number('--frequency-penalty')],
    ['presence_penalty', read.number('--presence-penalty')],
    ['repetition_penalty', read.number('--repetition-penalty')],
  ]
  for (const [key, value] of pairs) if (value !== undefined) sampling[key] = value
  return sampling
}

/** Sampling flag of each sampling key, for messages. */
const SAMPLING_FLAGS: Record<keyof SamplingParams, string> = {
  temperature: '--temperature',
  top_p: '--top-p',
  top_k: '--top-k',
  min_p: '--min-p',
  frequency_penalty: '--frequency-penalty',
  presence_penalty: '--presence-penalty',
  repetition_penalty: '--repetition-penalty',
}

/**
 * Python (`main`): pooling backends drop the sampling flags silently (their task sends none);
 * `openai-audio` refuses them ("Sampling parameters are only supported by openai-compatible
 * backends"); the Responses API has no `min_p`. Returns the sampling params the run sends.
 */
function samplingForBackend(
  backend: BackendName,
  sampling: SamplingParams,
  issues: ConfigIssue[],
): SamplingParams {
  if (POOLING_BACKENDS.includes(backend)) return {}
  if (backend === 'openai-audio') {
    for (const key of Object.keys(sampling) as Array<keyof SamplingParams>) {
      issues.push({
        path: SAMPLING_FLAGS[key],
        message: `is a sampling parameter; Python sends sampling parameters only with the openai-compatible backends (${OPENAI_COMPATIBLE_BACKENDS.join(', ')}), not --backend openai-audio; send it with --extra-body if your server accepts it`,
      })
    }
  }
  if (backend === 'openai-responses' && sampling.min_p !== undefined) {
    issues.push({
      path: '--min-p',
      message:
        'is not supported by --backend openai-responses (the Responses API has no min_p); remove it, or send it with --extra-body if your server accepts it',
    })
  }
  return sampling
}

function normaliseBaseUrl(value: string, endpointPath: string, issues: ConfigIssue[]): string {
  try {
    const url = new URL(value)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme')
    const trimmed = value.replace(/\/+$/, '')
    // As OpenAI's clients take it: a base URL that ends in /v1, where servebench adds /v1/… itself.
    if (!/\/v1\/*$/.test(url.pathname) || !endpointPath.startsWith('/v1/')) return trimmed
    const base = trimmed.slice(0, -'/v1'.length)
    console.warn(
      `servebench: --base-url ends in /v1, which servebench adds itself (${endpointPath}, /v1/models): sending to ${withoutPassword(base)}`,
    )
    return base
  } catch {
    issues.push({ path: '--base-url', message: `must be an http:// or https:// URL (got "${value}")` })
    return value
  }
}

function withoutPassword(value: string): string {
  const url = new URL(value)
  if (url.password === '') return value
  url.password = '***'
  return url.href.replace(/\/$/, '')
}

/** Typed access to flag values; every bad value becomes an issue naming its flag. */
export type Reader = ReturnType<typeof createReader>

export function createReader(flags: FlagValues, issues: ConfigIssue[]) {
  const scalar = (name: string): string | undefined => {
    const value = flags.get(name)
    if (value === undefined || value === true) return undefined
    return Array.isArray(value) ? value.join(' ') : value
  }
  const fail = (name: string, message: string): undefined => {
    issues.push({ path: name, message })
    return undefined
  }
  return {
    string: scalar,
    bool: (name: string): boolean => flags.get(name) === true,
    int(name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
      const raw = scalar(name)
      if (raw === undefined) return undefined
      const value = Number(raw)
      if (!/^-?\d+$/.test(raw.trim())) return fail(name, `must be an integer (got "${raw}")`)
      if (value < min) return fail(name, `must be at least ${min} (got ${value})`)
      if (value > max) return fail(name, `must be at most ${max} (got ${value})`)
      return value
    },
    number(name: string): number | undefined {
      const raw = scalar(name)
      if (raw === undefined) return undefined
      const value = Number(raw)
      if (raw.trim() === '' || !Number.isFinite(value)) return fail(name, `must be a number (got "${raw}")`)
      return value
    },
    positive(name: string): number | undefined {
      const raw = scalar(name)
      if (raw === undefined) return undefined
      const value = Number(raw)
      if (raw.trim() === '' || !Number.isFinite(value) || value <= 0) {
        return fail(name, `must be a number of seconds > 0 (got "${raw}")`)
      }
      return value
    },
    rate(name: string, rule: string): number | undefined {
      const raw = scalar(name)
      if (raw === undefined) return undefined
      const value = /^\+?inf(inity)?$/i.test(raw.trim()) ? Number.POSITIVE_INFINITY : Number(raw)
      if (raw.trim() === '' || Number.isNaN(value) || value <= 0) return fail(name, `${rule} (got "${raw}")`)
      return value
    },
    choice<T extends string>(name: string, choices: readonly T[]): T | undefined {
      const raw = scalar(name)
      if (raw === undefined) return undefined
      if (!(choices as readonly string[]).includes(raw)) {
        return fail(name, `must be one of ${choices.join(', ')} (got "${raw}")`)
      }
      return raw as T
    },
    pairs(name: string, separator: string): Record<string, string> {
      const raw = flags.get(name)
      const out: Record<string, string> = {}
      if (!Array.isArray(raw)) return out
      for (const pair of raw) {
        const at = pair.indexOf(separator)
        const key = at === -1 ? '' : pair.slice(0, at).trim()
        if (!key) {
          // A --header value may be a secret: never echo it.
          const got =
            name === '--header' ? 'a value without a KEY; not shown, headers may hold secrets' : `"${pair}"`
          issues.push({ path: name, message: `must be KEY${separator}VALUE pairs (got ${got})` })
          continue
        }
        // defineProperty: `__proto__` stays a key the checks can see, not the object's prototype.
        Object.defineProperty(out, key, {
          value: pair.slice(at + 1).trim(),
          enumerable: true,
          writable: true,
          configurable: true,
        })
      }
      return out
    },
    parsed<T>(name: string, parse: (value: string & string[]) => T): T | undefined {
      const raw = flags.get(name)
      if (raw === undefined || raw === true) return undefined
      try {
        return parse(raw as string & string[])
      } catch (error) {
        // A parser that already names its flag reports its own issues.
        if (error instanceof ConfigError) {
          issues.push(...error.issues)
          return undefined
        }
        return fail(name, (error as Error).message)
      }
    },
  }
}
