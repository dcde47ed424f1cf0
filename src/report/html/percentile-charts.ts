/**
 * Charts of results saved without per-request arrays (Python's default `--save-result`): each
 * latency metric's percentile curve from its `median_<metric>_ms` and `p<N>_<metric>_ms` keys, and
 * the throughputs as bars; one series per result, so two plain results compare on one chart. Pure.
 */
import { type ChartMark, type ChartSpec, COLORS } from './report-charts.ts'

/** The latency metrics of a result, as its keys (`ttft` in `p99_ttft_ms`) and as the report names them. */
export const LATENCY_METRICS = [
  { key: 'ttft', label: 'TTFT', test: /\bTTFT\b/i },
  { key: 'tpot', label: 'TPOT', test: /\bTPOT\b/i },
  { key: 'itl', label: 'ITL', test: /\bITL\b/i },
  { key: 'e2el', label: 'E2EL', test: /\bE2EL\b|end-to-end/i },
] as const

export type LatencyMetric = (typeof LATENCY_METRICS)[number]['key']

/** A result to draw, with the name its series takes. */
export interface LabelledResult {
  label: string
  result: Record<string, unknown>
}

const REQUEST_RATES = [
  { key: 'request_throughput', label: 'requests' },
  { key: 'request_goodput', label: 'goodput' },
] as const
const TOKEN_RATES = [
  { key: 'output_throughput', label: 'output' },
  { key: 'total_token_throughput', label: 'total' },
] as const

/**
 * A result's percentiles of one metric, by percentile: `p<N>_<metric>_ms` keys, and
 * `median_<metric>_ms` as the 50th when no `p50` key is there.
 */
export function latencyPercentiles(
  result: Record<string, unknown>,
  metric: LatencyMetric,
): Array<{ p: number; ms: number }> {
  const pattern = new RegExp(`^p(\\d+(?:\\.\\d+)?)_${metric}_ms$`)
  const byP = new Map<number, number>()
  for (const [k, v] of Object.entries(result)) {
    const m = pattern.exec(k)
    if (m && typeof v === 'number' && Number.isFinite(v)) byP.set(Number(m[1]), v)
  }
  const median = result[`median_${metric}_ms`]
  if (!byP.has(50) && typeof median === 'number' && Number.isFinite(median)) byP.set(50, median)
  return [...byP].sort(([a], [b]) => a - b).map(([p, ms]) => ({ p, ms }))
}

/**
 * One chart per latency metric that some result has percentiles of: percentile (one category each,
 * `p50 p90 p99`) against ms, a line per result. `marks(metric)` adds horizontal lines (SLO bounds).
 */
export function percentileCharts(
  idPrefix: string,
  results: readonly LabelledResult[],
  marks: (metric: LatencyMetric) => ChartMark[] = () => [],
): ChartSpec[] {
  return LATENCY_METRICS.flatMap((m): ChartSpec[] => {
    const curves = results.map((r) => new Map(latencyPercentiles(r.result, m.key).map((c) => [c.p, c.ms])))
    const ps = [...new Set(curves.flatMap((c) => [...c.keys()]))].sort((a, b) => a - b)
    if (ps.length === 0) return []
    return [
      {
        id: `${idPrefix}-${m.key}-percentiles`,
        title: `${m.label} percentiles`,
        kind: 'line',
        xLabel: 'percentile',
        yLabel: 'ms',
        x: ps.map((_, i) => i),
        xTicks: ps.map((p) => `p${p}`),
        series: curves.map((c, i) => ({
          label: results.length === 1 ? m.label : results[i]!.label,
          values: ps.map((p) => c.get(p) ?? null),
          color: COLORS[i % COLORS.length]!,
          markers: true,
        })),
        marks: marks(m.key),
        yFromZero: true,
      },
    ]
  })
}

/**
 * The throughputs of each result as bars side by side: requests and goodput per second, and
 * output and total tokens per second (two charts: their scales differ a hundredfold).
 */
export function throughputBars(idPrefix: string, results: readonly LabelledResult[]): ChartSpec[] {
  const chart = (
    id: string,
    title: string,
    unit: string,
    rates: ReadonlyArray<{ key: string; label: string }>,
  ): ChartSpec[] => {
    const shown = rates.filter((rate) => results.some((r) => finite(r.result[rate.key]) !== null))
    if (shown.length === 0) return []
    return [
      {
        id: `${idPrefix}-${id}`,
        title,
        kind: 'bars',
        xLabel: '',
        yLabel: unit,
        x: shown.map((_, i) => i),
        xTicks: shown.map((rate) => rate.label),
        series: results.map((r, i) => ({
          label: r.label,
          values: shown.map((rate) => finite(r.result[rate.key])),
          color: COLORS[i % COLORS.length]!,
          barGroup: { index: i, count: results.length },
        })),
        yFromZero: true,
      },
    ]
  }
  return [
    ...chart('request-rates', 'Requests per second', 'req/s', REQUEST_RATES),
    ...chart('token-rates', 'Tokens per second', 'tok/s', TOKEN_RATES),
  ]
}

function finite(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}
