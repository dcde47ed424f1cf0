/**
 * The `server_metrics` result key (docs/reports.md, "Server metrics"): the server's Prometheus
 * gauges and counters scraped while a run lasted, one column per metric name. Pure: the runner
 * scrapes, this shapes.
 */
import type { PrometheusExposition } from '../../metrics/prometheus.ts'

/** The result key the scraped series are kept under. */
export const SERVER_METRICS_KEY = 'server_metrics'

/** The value of `result.server_metrics`. */
export interface ServerMetricsSeries {
  /** The page scraped: `{base URL}/metrics`. */
  source: string
  /** The scrape period asked for, s. */
  interval_s: number
  /**
   * When each scrape was answered, on the clock of the result's `start_times` (s), so a series
   * lines up with the requests.
   */
  t_s: number[]
  /** One value per scrape and metric name: the sum over the name's label sets. */
  series: Record<string, number[]>
}

/** One scrape: its time and the value of each metric name in it. */
export interface ServerScrape {
  tS: number
  values: Record<string, number>
}

/** The names shown first, in this order, when a server exports them (vLLM's). */
export const VLLM_SERIES = [
  'vllm:num_requests_running',
  'vllm:num_requests_waiting',
  'vllm:kv_cache_usage_perc',
  'vllm:gpu_cache_usage_perc',
  'vllm:prefix_cache_queries_total',
  'vllm:prefix_cache_hits_total',
  'vllm:num_preemptions_total',
] as const

/** At most this many metric names are kept (vLLM's first): a scrape stays a few KiB per sample. */
export const MAX_SERVER_SERIES = 48

/**
 * The gauge and counter values of one exposition, summed per metric name over label sets
 * (histograms and summaries are left out; an untyped sample counts as a gauge).
 */
export function scrapeValues(exposition: PrometheusExposition): Record<string, number> {
  const values: Record<string, number> = {}
  for (const s of exposition.samples) {
    const type = exposition.types[s.name] ?? exposition.types[s.name.replace(/_total$/, '')] ?? 'untyped'
    if (type === 'histogram' || type === 'summary' || /_(bucket|sum|count)$/.test(s.name)) continue
    if (!Number.isFinite(s.value)) continue
    values[s.name] = (values[s.name] ?? 0) + s.value
  }
  return values
}

/**
 * The series of the scrapes in time order: vLLM's names first, then the others by name, at most
 * {@link MAX_SERVER_SERIES}; a name missing from a scrape repeats its previous value (0 before
 * its first). Undefined when no scrape answered.
 */
export function serverMetricsJson(
  scrapes: readonly ServerScrape[],
  meta: { source: string; intervalS: number },
): ServerMetricsSeries | undefined {
  if (scrapes.length === 0) return undefined
  const names = new Set<string>()
  for (const s of scrapes) for (const name of Object.keys(s.values)) names.add(name)
  const known = VLLM_SERIES.filter((n) => names.has(n))
  const others = [...names].filter((n) => !(VLLM_SERIES as readonly string[]).includes(n)).sort()
  const kept = [...known, ...others].slice(0, MAX_SERVER_SERIES)
  const series: Record<string, number[]> = {}
  for (const name of kept) {
    let last = 0
    series[name] = scrapes.map((s) => {
      const v = s.values[name]
      if (v !== undefined) last = v
      return last
    })
  }
  return { source: meta.source, interval_s: meta.intervalS, t_s: scrapes.map((s) => s.tS), series }
}

/** `result.server_metrics` when it has the documented shape, else undefined. */
export function readServerMetrics(value: unknown): ServerMetricsSeries | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const v = value as Partial<ServerMetricsSeries>
  if (!Array.isArray(v.t_s) || typeof v.series !== 'object' || v.series === null) return undefined
  return {
    source: String(v.source ?? ''),
    interval_s: typeof v.interval_s === 'number' ? v.interval_s : 0,
    t_s: v.t_s,
    series: v.series,
  }
}
