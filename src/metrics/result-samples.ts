import type { PoolingBenchResult } from '../report/result/pooling-result.ts'
import type { BenchResult } from '../report/result/result-types.ts'
import type { BlockedRun } from './block-bootstrap.ts'
import { assignBlocks } from './blocks.ts'
import { mean, median, percentile, std } from './percentile.ts'
import {
  steadySpan,
  type ThroughputKind,
  type TimelineRequest,
  type WindowedThroughput,
  windowThroughputs,
} from './window-throughput.ts'

/** A run's result as the verdicts read it (the suites' `ServeBenchResult`). */
type ServeBenchResult = BenchResult | PoolingBenchResult

/** Per-request latency metrics a verdict can look at. */
export type LatencyMetric = 'ttft' | 'tpot' | 'itl' | 'e2el'
export const LATENCY_METRICS: readonly LatencyMetric[] = ['ttft', 'tpot', 'itl', 'e2el']
/** Throughput keys of the result, in their units. */
export const THROUGHPUT_UNITS = {
  request_throughput: 'req/s',
  output_throughput: 'tok/s',
  total_token_throughput: 'tok/s',
} as const
export type ThroughputKey = keyof typeof THROUGHPUT_UNITS

/** Display names as the Python console table writes them. */
export const METRIC_LABELS: { readonly [K in LatencyMetric]: string } = {
  ttft: 'TTFT',
  tpot: 'TPOT',
  itl: 'ITL',
  e2el: 'E2EL',
}

/** Latency metrics a pooling run has: no token stream, so only end-to-end latency. */
export const POOLING_LATENCY_METRICS: readonly LatencyMetric[] = ['e2el']

/** True when `value` is a result `serveBench` passes to its assertions, generation or pooling. */
export function isServeBenchResult(value: unknown): value is ServeBenchResult {
  return isBenchResult(value) || isPoolingResult(value)
}

/** True for the pooling shape (embeddings, pooling, rerank backends). */
export function isPoolingResult(value: unknown): value is PoolingBenchResult {
  const r = value as Partial<PoolingBenchResult> | null
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.total_input_sequences === 'number' &&
    Array.isArray(r.latencies) &&
    Array.isArray(r.errors) &&
    !Array.isArray((r as { ttfts?: unknown }).ttfts)
  )
}

/** True when `value` looks like a generation result (with the token-stream arrays). */
export function isBenchResult(value: unknown): value is BenchResult {
  const r = value as Partial<BenchResult> | null
  return (
    typeof r === 'object' &&
    r !== null &&
    Array.isArray(r.ttfts) &&
    Array.isArray(r.latencies) &&
    Array.isArray(r.output_lens) &&
    Array.isArray(r.itls)
  )
}

/**
 * The successful requests' values of one latency metric, in ms (Python's per-metric lists). A
 * pooling result has only `e2el`; the other metrics give no samples.
 */
export function latencySamplesMs(result: ServeBenchResult, metric: LatencyMetric): number[] {
  const out: number[] = []
  if (!isBenchResult(result)) {
    if (metric !== 'e2el') return out
    result.latencies.forEach((latencyS, i) => {
      if (succeeded(result, i)) out.push(latencyS * 1000)
    })
    return out
  }
  const n = result.latencies.length
  for (let i = 0; i < n; i++) {
    if (!succeeded(result, i)) continue
    const ttftS = result.ttfts[i] ?? 0
    const latencyS = result.latencies[i] ?? 0
    if (metric === 'ttft') out.push(ttftS * 1000)
    else if (metric === 'e2el') out.push(latencyS * 1000)
    else if (metric === 'itl') for (const gap of result.itls[i] ?? []) out.push(gap * 1000)
    else {
      const outputLen = result.output_lens[i] ?? 0
      if (outputLen > 1) out.push(((latencyS - ttftS) / (outputLen - 1)) * 1000)
    }
  }
  return out
}

/** A statistic name of a bound or a result key: `mean`, `median`, `std`, `min`, `max`, `p<0–100>`. */
export function statisticOf(name: string): ((xs: readonly number[]) => number) | undefined {
  if (name === 'mean') return mean
  if (name === 'median') return median
  if (name === 'std') return std
  if (name === 'min') return (xs) => (xs.length === 0 ? 0 : Math.min(...xs))
  if (name === 'max') return (xs) => (xs.length === 0 ? 0 : Math.max(...xs))
  const m = /^p(\d+(?:\.\d+)?)$/.exec(name)
  if (m) {
    const p = Number(m[1])
    if (p >= 0 && p <= 100) return (xs) => percentile(xs, p)
  }
  return undefined
}

/** Whether request `i` succeeded (its error text is empty). */
export function succeeded(result: ServeBenchResult, i: number): boolean {
  return (result.errors?.[i] ?? '') === ''
}

/** Number of requests in the measured run, failures included. */
export function requestCount(result: ServeBenchResult): number {
  return result.completed + failedCount(result)
}

/** Failed requests; a pooling result has no `failed` key, so they are counted from `errors`. */
export function failedCount(result: ServeBenchResult): number {
  if (typeof result.failed === 'number') return result.failed
  return result.errors.filter((e) => e !== '').length
}

/**
 * The successful requests' values of one latency metric (as {@link latencySamplesMs}) with the block
 * of correlated requests each belongs to (`metrics/blocks.ts`): blocks follow the start times and
 * the run's concurrency limit; a pooling result (no start times) is blocked in dispatch order.
 */
export function blockedLatencySamples(result: ServeBenchResult, metric: LatencyMetric): BlockedRun {
  const startTimes = isBenchResult(result)
    ? result.latencies.map((_, i) => result.start_times?.[i] ?? Number.NaN)
    : result.latencies.map((_, i) => i)
  const ok = startTimes.map((_, i) => succeeded(result, i))
  const okStarts = startTimes.filter((_, i) => ok[i])
  const okBlocks = assignBlocks(okStarts, { concurrency: result.max_concurrency ?? undefined })
  const blockOf: number[] = []
  let j = 0
  for (let i = 0; i < startTimes.length; i++) blockOf.push(ok[i] ? okBlocks[j++]! : -1)
  const values: number[] = []
  const blocks: number[] = []
  const push = (i: number, v: number): void => {
    values.push(v)
    blocks.push(blockOf[i]!)
  }
  if (!isBenchResult(result)) {
    if (metric === 'e2el')
      for (let i = 0; i < result.latencies.length; i++) if (ok[i]) push(i, result.latencies[i]! * 1000)
    return { values, blocks }
  }
  for (let i = 0; i < result.latencies.length; i++) {
    if (!ok[i]) continue
    const ttftS = result.ttfts[i] ?? 0
    const latencyS = result.latencies[i] ?? 0
    if (metric === 'ttft') push(i, ttftS * 1000)
    else if (metric === 'e2el') push(i, latencyS * 1000)
    else if (metric === 'itl') for (const gap of result.itls[i] ?? []) push(i, gap * 1000)
    else {
      const outputLen = result.output_lens[i] ?? 0
      if (outputLen > 1) push(i, ((latencyS - ttftS) / (outputLen - 1)) * 1000)
    }
  }
  return { values, blocks }
}

/** What the throughput windows need of each request; empty for a pooling result (no start times). */
export function timelineOf(result: ServeBenchResult): TimelineRequest[] {
  if (!isBenchResult(result)) return []
  return result.latencies.map((latencyS, i) => ({
    success: succeeded(result, i),
    startS: result.start_times?.[i] ?? Number.NaN,
    latencyS,
    ttftS: result.ttfts[i] ?? 0,
    itlsS: result.itls[i] ?? [],
    inputLen: result.input_lens[i] ?? 0,
    outputLen: result.output_lens[i] ?? 0,
  }))
}

const THROUGHPUT_KINDS: { readonly [K in ThroughputKey]: ThroughputKind } = {
  request_throughput: 'request',
  output_throughput: 'output',
  total_token_throughput: 'total',
}

/**
 * Throughput of `key` in fixed windows of the run's steady part (`metrics/window-throughput.ts`):
 * the result's `steady_state` window when it has one, else the ramp-up and drain rule.
 */
export function throughputWindows(result: ServeBenchResult, key: ThroughputKey): WindowedThroughput {
  const timeline = timelineOf(result)
  const window = (
    result.steady_state as { window?: { start_s?: unknown; end_s?: unknown } } | null | undefined
  )?.window
  const steady =
    typeof window?.start_s === 'number' && typeof window.end_s === 'number'
      ? { startS: window.start_s, endS: window.end_s }
      : undefined
  const span = steadySpan(timeline, steady)
  return windowThroughputs(timeline, THROUGHPUT_KINDS[key], span ? { span } : {})
}

/** The client self-check of a result (`client_health`), when the run made one. */
export function clientHealthOf(
  result: ServeBenchResult,
): { saturated: boolean; reasons: string[] } | undefined {
  const h = (result as { client_health?: { saturated?: unknown; reasons?: unknown } }).client_health
  if (typeof h !== 'object' || h === null || typeof h.saturated !== 'boolean') return undefined
  return { saturated: h.saturated, reasons: Array.isArray(h.reasons) ? h.reasons.map(String) : [] }
}

/**
 * The successful requests' latency from their intended send time, in ms (open loops: the
 * `intended_delays` kept in memory, plus TTFT or E2EL). Empty for a closed loop, which has no
 * intended time, and for `ttft` on a pooling result. docs/client-health.md.
 * @experimental
 */
export function intendedSamplesMs(result: ServeBenchResult, metric: 'ttft' | 'e2el'): number[] {
  const delays = (result as { intended_delays?: unknown }).intended_delays
  if (!Array.isArray(delays)) return []
  if (metric === 'ttft' && !isBenchResult(result)) return []
  const out: number[] = []
  for (let i = 0; i < result.latencies.length; i++) {
    if (!succeeded(result, i)) continue
    const fromSendS = metric === 'ttft' ? ((result as BenchResult).ttfts[i] ?? 0) : (result.latencies[i] ?? 0)
    out.push((fromSendS + ((delays[i] as number | undefined) ?? 0)) * 1000)
  }
  return out
}
