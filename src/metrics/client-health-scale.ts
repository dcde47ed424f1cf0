/**
 * The latencies the client self-check's reading limit scales with, and the same run judged again
 * at another of them. A CLI run is judged against its median ITL (its table prints ITL
 * percentiles); a suite against the finest latency its checks judge: a 6 ms stall distorts a 10 ms
 * ITL and hardly moves a 35 ms mean TTFT. Pure. See docs/client-health.md.
 */
import {
  type ClientHealthSummary,
  type LatencyScales,
  type ReadingMetric,
  summarizeClientHealth,
} from './client-health.ts'
import { medianSorted } from './percentile.ts'

/** The medians the limits scale with, from the run's outputs (successful ones). */
export function latencyScales(
  outputs: ReadonlyArray<{ success: boolean; itlS: readonly number[]; latencyS: number; ttftS: number }>,
): LatencyScales {
  const itl: number[] = []
  const ttft: number[] = []
  const decode: number[] = []
  const e2el: number[] = []
  for (const o of outputs) {
    if (!o.success) continue
    e2el.push(o.latencyS * 1000)
    if (o.ttftS > 0) ttft.push(o.ttftS * 1000)
    if (o.itlS.length > 0) decode.push((o.latencyS - o.ttftS) * 1000)
    // A strided sample keeps this linear for long streams: the median of 50,000 gaps is plenty.
    const step = Math.max(1, Math.floor(o.itlS.length / 64))
    for (let i = 0; i < o.itlS.length; i += step) itl.push(o.itlS[i]! * 1000)
  }
  const med = (xs: number[]): number | undefined =>
    xs.length > 0 ? medianSorted(Float64Array.from(xs).sort()) : undefined
  const medians: Partial<Record<ReadingMetric, number>> = {}
  for (const [metric, xs] of [
    ['itl', itl],
    ['ttft', ttft],
    ['decode', decode],
    ['e2el', e2el],
  ] as const) {
    const m = med(xs)
    if (m !== undefined) medians[metric] = m
  }
  if (medians.e2el === undefined) return {}
  const reading: ReadingMetric = medians.itl !== undefined ? 'itl' : 'e2el'
  return { readingMs: medians[reading]!, readingMetric: reading, sendingMs: medians.e2el, medians }
}

/**
 * The run judged again with its reading limit scaled to the finest of `metrics` (the latency
 * with the smallest median) instead of the ITL; the summary as it was when it cannot be (no
 * inputs kept, none of `metrics` measured, or already judged so).
 */
export function judgeAtScale(
  summary: ClientHealthSummary,
  metrics: readonly ReadingMetric[],
): ClientHealthSummary {
  const input = summary.input
  const medians = input?.scales.medians
  if (!input || !medians) return summary
  let finest: ReadingMetric | undefined
  for (const m of metrics) {
    const v = medians[m]
    if (v !== undefined && (finest === undefined || v < medians[finest]!)) finest = m
  }
  if (finest === undefined || finest === input.scales.readingMetric) return summary
  const again = summarizeClientHealth({
    ...input,
    scales: { ...input.scales, readingMs: medians[finest]!, readingMetric: finest },
  })
  return {
    ...again,
    ...(summary.httpTransport !== undefined ? { httpTransport: summary.httpTransport } : {}),
    ...(summary.clientThreads !== undefined ? { clientThreads: summary.clientThreads } : {}),
  }
}
