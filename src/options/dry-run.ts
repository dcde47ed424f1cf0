/**
 * The dry run: a resolved configuration as plain JSON, for `servebench serve --dry-run` and
 * `resolveServeBench(options)`. Both doors resolve through the same resolver, so the same
 * workload prints the same JSON (a suite's `label` defaults to the benchmark's name).
 */
import type { BenchConfig } from '../config/bench-config.ts'
import type { DslContext, ServeBenchOptions } from '../config/dsl-options.ts'
import { configFingerprint } from '../config/fingerprint.ts'
import { redactUrl } from '../runner/redact.ts'
import { benchConfigFromDsl } from './from-dsl.ts'

/** The base URL of `servebench serve` without `--base-url`, `--host` or `--port`. */
const CLI_DEFAULT_BASE_URL = 'http://127.0.0.1:8000'

/** What `resolveServeBench` assumes outside a Vitest run. */
export interface ResolveServeBenchContext {
  /** The benchmark's name: issue paths start at it, and it is the default `label`. @default 'servebench' */
  name?: string
  /** Base URL when `endpoint({ baseUrl })` is not set. @default process.env.SERVEBENCH_BASE_URL, else http://127.0.0.1:8000 */
  defaultBaseUrl?: string
  /** Environment read for `OPENAI_API_KEY`. @default process.env */
  env?: Record<string, string | undefined>
}

/**
 * Validates `serveBench` options the way a suite does and returns the dry-run JSON that
 * `servebench serve --dry-run` prints for the same workload; throws the same `ConfigError`
 * (every issue, named in DSL words) otherwise. Sends nothing.
 */
export function resolveServeBench(
  options: ServeBenchOptions,
  context: ResolveServeBenchContext = {},
): Record<string, unknown> {
  const env = context.env ?? process.env
  const ctx: DslContext = {
    name: context.name ?? 'servebench',
    defaultBaseUrl: context.defaultBaseUrl ?? env.SERVEBENCH_BASE_URL ?? CLI_DEFAULT_BASE_URL,
    env,
  }
  return dryRunJson(benchConfigFromDsl(options, ctx))
}

/**
 * `BenchConfig` as JSON: `Infinity` as `"inf"` (as the result JSON writes it), secrets (the API key,
 * header values, a base URL's `user:password@`) as `[redacted]`, the per-run random request-id prefix as `bench-<random>-`, and
 * the progress-bar switch left out. `fingerprint` is the id baselines are stored under.
 */
export function dryRunJson(config: BenchConfig): Record<string, unknown> {
  const { disableTqdm: _console, ...rest } = config
  const endpoint = {
    ...config.endpoint,
    baseUrl: redactUrl(config.endpoint.baseUrl),
    headers: Object.fromEntries(Object.keys(config.endpoint.headers).map((key) => [key, '[redacted]'])),
    ...(config.endpoint.apiKey !== undefined ? { apiKey: '[redacted]' } : {}),
  }
  const prefix = config.request.requestIdPrefix
  const request = {
    ...config.request,
    requestIdPrefix: /^bench-[0-9a-f]{8}-$/.test(prefix) ? 'bench-<random>-' : prefix,
  }
  const plain = { ...rest, endpoint, request, fingerprint: configFingerprint(config) }
  return JSON.parse(JSON.stringify(plain, (_key, value: unknown) => jsonValue(value))) as Record<
    string,
    unknown
  >
}

function jsonValue(value: unknown): unknown {
  if (typeof value !== 'number' || Number.isFinite(value)) return value
  return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf'
}
