/**
 * The charts of the server's scraped `/metrics` series (`server_metrics`): its queue against the
 * client's TTFT on one time axis, and its KV cache. Pure.
 */

import type { ServerMetricsSeries } from '../result/server-metrics-key.ts'
import { type ChartSeries, type ChartSpec, COLORS, type RequestSeries } from './report-charts.ts'

/**
 * The server's queue against the client's TTFT on one time axis: each request's TTFT (a point at
 * its first token) and the scraped running / waiting requests; then KV-cache usage, prefix-cache
 * hit rate and preemptions per interval. Absent series are left out.
 */
export function serverCharts(
  idPrefix: string,
  server: ServerMetricsSeries,
  r: RequestSeries | undefined,
): ChartSpec[] {
  const origin = r?.originS ?? server.t_s[0] ?? 0
  const serverX = server.t_s.map((t) => t - origin)
  const pick = (name: string): number[] | undefined => server.series[name]
  const running = pick('vllm:num_requests_running')
  const waiting = pick('vllm:num_requests_waiting')
  const queue: ChartSeries[] = []
  if (running)
    queue.push({ label: 'running (server)', values: running, color: COLORS[2], kind: 'step', scale: 'y2' })
  if (waiting)
    queue.push({ label: 'waiting (server)', values: waiting, color: COLORS[1], kind: 'step', scale: 'y2' })
  const charts: ChartSpec[] = []
  if (queue.length > 0) {
    // One x axis for both: the request points and the scrape times merged, each series null elsewhere.
    const withTtft = r !== undefined && r.ttftMs.length > 0 && r.ttftMs.length === r.startS.length
    const ttftAt = withTtft ? r.startS.map((s, i) => [s + r.ttftMs[i]! / 1000, r.ttftMs[i]!] as const) : []
    const x = [...new Set([...serverX, ...ttftAt.map(([t]) => t)])].sort((a, b) => a - b)
    const index = new Map(x.map((t, i) => [t, i]))
    const ttft = new Array<number | null>(x.length).fill(null)
    for (const [t, ms] of ttftAt) ttft[index.get(t)!] = ms
    const spread = (values: number[]): Array<number | null> => {
      const out = new Array<number | null>(x.length).fill(null)
      serverX.forEach((t, i) => {
        out[index.get(t)!] = values[i] ?? null
      })
      return out
    }
    charts.push({
      id: `${idPrefix}-server-queue`,
      title: 'Server queue and client TTFT',
      kind: 'points',
      xLabel: 's',
      yLabel: 'TTFT ms',
      y2Label: 'requests',
      x,
      series: [
        ...(withTtft
          ? [{ label: 'TTFT (client)', values: ttft, color: COLORS[0], kind: 'points' as const }]
          : []),
        ...queue.map((s) => ({ ...s, values: spread(s.values as number[]) })),
      ],
    })
  }
  const cache: ChartSeries[] = []
  const kv = pick('vllm:kv_cache_usage_perc') ?? pick('vllm:gpu_cache_usage_perc')
  if (kv) cache.push({ label: 'KV-cache usage %', values: kv.map((v) => v * 100), color: COLORS[4] })
  const hits = pick('vllm:prefix_cache_hits_total')
  const queries = pick('vllm:prefix_cache_queries_total')
  if (hits && queries)
    cache.push({
      label: 'prefix-cache hit rate %',
      values: hits.map((h, i) => {
        if (i === 0) return null
        const dq = queries[i]! - queries[i - 1]!
        return dq > 0 ? ((h - hits[i - 1]!) / dq) * 100 : null
      }),
      color: COLORS[3],
    })
  const preempt = pick('vllm:num_preemptions_total')
  if (preempt)
    cache.push({
      label: 'preemptions per interval',
      values: preempt.map((p, i) => (i === 0 ? 0 : p - preempt[i - 1]!)),
      color: COLORS[1],
      kind: 'bars',
      scale: 'y2',
    })
  if (cache.length > 0)
    charts.push({
      id: `${idPrefix}-server-cache`,
      title: 'Server KV cache',
      kind: 'line',
      xLabel: 's',
      yLabel: '%',
      ...(preempt ? { y2Label: 'preemptions' } : {}),
      x: serverX,
      series: cache,
    })
  return charts
}
