/**
 * The Python result object (the key names and order of vllm/benchmarks/serve.py), built from the run's setup, its metrics and
 * its records. Pure: `writeResult` in `write.ts` puts it on disk.
 * Python: main_async and benchmark (vllm/benchmarks/serve.py).
 */
import type { RampUpConfig } from '../../config/bench-config.ts'
import type { RequestRecord } from '../../config/records.ts'
import { MAX_LABEL_BYTES, safeFileNamePart } from '../../file-names.ts'
import type { BenchmarkMetrics } from '../../metrics/calculate.ts'
import { pyFloatRepr } from '../../metrics/py-number.ts'
import type { BenchResult, RequestArrays } from './result-types.ts'
import { DETAILED_KEYS, SERVEBENCH_DETAILED_KEYS } from './result-types.ts'
import type { AnyBenchResult } from './run-result.ts'
import { SERVER_DETAILED_KEYS } from './server-keys.ts'

/** Everything about a run the result records besides its metrics and records. */
export interface ResultSetup {
  /** `YYYYMMDD-HHMMSS`, local time; see {@link formatDate}. */
  date: string
  backend: string
  /** `--label`; written as null when absent. */
  label?: string
  modelId: string
  /** null with `--skip-tokenizer-init`. */
  tokenizerId: string | null
  numPrompts: number
  numWarmups: number
  /** `--metadata K=V` pairs, in order; each becomes a top-level string key. */
  metadata: Array<[string, string]>
  /** `Infinity` is written as `"inf"`. */
  requestRate: number
  burstiness: number
  maxConcurrency?: number
  rampUp?: RampUpConfig
}

/**
 * Optional keys Python inserts after `rtfx` and before the statistics (probe, `rps_change_events`,
 * spec-decode and diffusion keys), in the order given.
 */
export type ExtraResultKeys = ReadonlyArray<readonly [string, unknown]>

/**
 * The result object in Python's key order: setup, metadata, traffic, the `benchmark()` keys, then
 * `extra`, then the statistics. A metadata key that a later key repeats keeps its place and takes the
 * later value, as Python's dict merge does.
 */
export function buildResult(
  setup: ResultSetup,
  metrics: BenchmarkMetrics,
  records: readonly RequestRecord[],
  extra: ExtraResultKeys = [],
): BenchResult {
  const out = setupKeys(setup)
  out.duration = metrics.durationS
  out.completed = metrics.completed
  out.failed = metrics.failed
  out.total_input_tokens = metrics.totalInputTokens
  out.total_output_tokens = metrics.totalOutputTokens
  out.request_throughput = metrics.requestThroughput
  out.request_goodput = metrics.requestGoodput
  out.output_throughput = metrics.outputThroughput
  out.total_token_throughput = metrics.totalTokenThroughput
  setRequestArrays(out, records)
  out.max_output_tokens_per_s = metrics.maxOutputTokensPerS
  out.max_concurrent_requests = metrics.maxConcurrentRequests
  out.rtfx = rtfx(records, metrics.durationS)
  for (const [key, value] of extra) out[key] = value
  for (const [key, value] of metrics.statistics) out[key] = value
  return out as BenchResult
}

/**
 * Sets the per-request arrays ({@link DETAILED_KEYS}, in that order): 1:1 with `records`, failures
 * included, with their raw timings; a failed request's output length is 0.
 */
export function setRequestArrays(out: Record<string, unknown>, records: readonly RequestRecord[]): void {
  Object.assign(out, requestArrays(records))
}

/** The per-request arrays of {@link setRequestArrays}, as an object in their order. */
export function requestArrays(records: readonly RequestRecord[]): RequestArrays {
  return {
    input_lens: records.map((r) => r.promptLen),
    output_lens: records.map((r) => (r.success ? r.outputLen : 0)),
    ttfts: records.map((r) => r.ttftS),
    itls: records.map((r) => [...r.itlS]),
    latencies: records.map((r) => r.latencyS),
    start_times: records.map((r) => r.startTimeS),
    queue_times: records.map((r) => r.queueTimeS),
    generated_texts: records.map((r) => r.generatedText),
    errors: records.map((r) => r.error),
  }
}

/**
 * Python's `rtfx`: seconds of input audio per second of run (`openai-audio`), over successful
 * requests; 0 when no request carried audio.
 */
export function rtfx(records: readonly RequestRecord[], durationS: number): number {
  let audioS = 0
  for (const r of records)
    if (r.success && r.inputAudioDurationS !== undefined) audioS += r.inputAudioDurationS
  return audioS > 0 ? audioS / durationS : 0
}

/** The setup, metadata and traffic keys every result starts with, in Python's order. */
export function setupKeys(setup: ResultSetup): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  out.date = setup.date
  out.endpoint_type = setup.backend
  out.backend = setup.backend
  out.label = setup.label ?? null
  out.model_id = setup.modelId
  out.tokenizer_id = setup.tokenizerId
  out.num_prompts = setup.numPrompts
  out.num_warmups = setup.numWarmups
  for (const [key, value] of setup.metadata) out[key] = value
  out.request_rate = Number.isFinite(setup.requestRate) ? setup.requestRate : 'inf'
  out.burstiness = setup.burstiness
  out.max_concurrency = setup.maxConcurrency ?? null
  if (setup.rampUp) {
    out.ramp_up_strategy = setup.rampUp.strategy
    out.ramp_up_start_rps = setup.rampUp.startRps
    out.ramp_up_end_rps = setup.rampUp.endRps
  }
  return out
}

/**
 * The object written to disk: without the per-request arrays unless `detailed` (`--save-detailed`).
 * As vLLM's tests/benchmarks assert: `latencies` and `queue_times` are dropped too, and servebench's `intended_delays`.
 */
export function resultForFile(result: AnyBenchResult, detailed: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { ...result }
  if (!detailed)
    for (const key of [...DETAILED_KEYS, ...SERVEBENCH_DETAILED_KEYS, ...SERVER_DETAILED_KEYS])
      delete out[key]
  return out
}

const pad2 = (n: number): string => String(n).padStart(2, '0')

/** Python `datetime.now().strftime("%Y%m%d-%H%M%S")`: local time, e.g. `20260101-010203`. */
export function formatDate(date: Date): string {
  const day = `${String(date.getFullYear()).padStart(4, '0')}${pad2(date.getMonth() + 1)}${pad2(date.getDate())}`
  return `${day}-${pad2(date.getHours())}${pad2(date.getMinutes())}${pad2(date.getSeconds())}`
}

/** An RPS as Python prints it: `--request-rate` is a float (`10.0`), ramp-up RPS are ints (`10`). */
function rampRps(rps: number): string {
  return Number.isInteger(rps) ? String(rps) : pyFloatRepr(rps)
}

/**
 * Python's default result file name (`compute_result_filename`):
 * `{label or backend}-{rate}qps[-concurrency{N}]-{model basename}-{date}.json`, or with ramp-up
 * `{label}-ramp-up-{strategy}-{start}qps-{end}qps[-concurrency{N}]-{model}-{date}.json`.
 * The rate is Python `str(float)`: `infqps`, `10.0qps`.
 */
export function resultFilename(
  result: AnyBenchResult,
  config: { label?: string; maxConcurrency?: number },
): string {
  // Parts from a suite's name or a server's model id are made safe to write (file-names.ts).
  const label = safeFileNamePart(config.label || result.label || result.backend, MAX_LABEL_BYTES)
  const concurrency = config.maxConcurrency ?? result.max_concurrency
  const concurrencyPart =
    concurrency !== null && concurrency !== undefined ? `-concurrency${concurrency}` : ''
  const model = safeFileNamePart(result.model_id.split('/').at(-1) ?? result.model_id)
  const strategy = result.ramp_up_strategy
  if (
    strategy !== undefined &&
    result.ramp_up_start_rps !== undefined &&
    result.ramp_up_end_rps !== undefined
  ) {
    const start = rampRps(result.ramp_up_start_rps)
    const end = rampRps(result.ramp_up_end_rps)
    return `${label}-ramp-up-${strategy}-${start}qps-${end}qps${concurrencyPart}-${model}-${result.date}.json`
  }
  const rate = result.request_rate === 'inf' ? 'inf' : pyFloatRepr(result.request_rate)
  return `${label}-${rate}qps${concurrencyPart}-${model}-${result.date}.json`
}
