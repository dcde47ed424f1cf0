import { mean, median, percentile, std } from '../../metrics/percentile.ts'
import type { PoolingBenchResult } from '../../report/pooling-result.ts'
import type { BenchResult } from '../../report/result-types.ts'
import type { ServeBenchResult } from '../shared/meta.ts'

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
 * Throughput of each of `k` equal time windows over the run (batch means): the per-run throughput
 * is one number, so a statistical comparison needs a sample from within the run.
 */
export function windowThroughputs(result: ServeBenchResult, key: ThroughputKey): number[] {
  // A pooling result has no start times: no windows.
  if (!isBenchResult(result)) return []
  const ends: Array<{ endS: number; tokens: number }> = []
  let t0 = Number.POSITIVE_INFINITY
  let t1 = Number.NEGATIVE_INFINITY
  for (let i = 0; i < result.latencies.length; i++) {
    const startS = result.start_times?.[i]
    if (startS === undefined) continue
    t0 = Math.min(t0, startS)
    if (!succeeded(result, i)) continue
    const endS = startS + (result.latencies[i] ?? 0)
    t1 = Math.max(t1, endS)
    const out = result.output_lens[i] ?? 0
    const tokens =
      key === 'request_throughput' ? 1 : key === 'output_throughput' ? out : out + (result.input_lens[i] ?? 0)
    ends.push({ endS, tokens })
  }
  if (ends.length === 0 || !(t1 > t0)) return []
  const k = Math.max(2, Math.min(20, Math.floor(ends.length / 4)))
  const widthS = (t1 - t0) / k
  const sums = new Array<number>(k).fill(0)
  for (const e of ends) sums[Math.min(k - 1, Math.floor((e.endS - t0) / widthS))]! += e.tokens
  return sums.map((s) => s / widthS)
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
