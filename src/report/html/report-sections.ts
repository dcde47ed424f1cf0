/**
 * What the HTML report shows, as plain data: one section per benchmark (latency distributions
 * with the SLO bounds and their verdicts, or its percentiles when it has no per-request arrays;
 * throughput and requests in flight with the steady-state window, the server's scraped series,
 * configuration, client self-check), a comparison of two results, sweeps (`sweep-charts.ts`), and
 * the history trends. Pure.
 */
import type { CapacityResultFile } from '../../capacity/capacity-result.ts'
import { compareDeltaRows } from '../compare/compare-markdown.ts'
import { readServerMetrics } from '../result/server-metrics-key.ts'
import type { SweepParameter } from '../result/sweep.ts'
import { type HistoryEntry, type HistoryTrend, historyTrends } from '../summary/history.ts'
import { num, percent } from '../summary/pr-comment.ts'
import type { Verdict, VerdictCheck } from '../summary/run-summary.ts'
import { MARKS } from '../summary/verdict-marks.ts'
import { capacitySection } from './capacity-charts.ts'
import { LATENCY_METRICS, percentileCharts, throughputBars } from './percentile-charts.ts'
import {
  type ChartMark,
  type ChartSpec,
  cdfChart,
  histogramChart,
  type RequestSeries,
  requestSeries,
  throughputCharts,
  trendChart,
} from './report-charts.ts'
import { serverCharts } from './server-charts.ts'
import { sweepGroups, sweepSection } from './sweep-charts.ts'

/** A table of the report. */
export interface ReportTable {
  title: string
  head: string[]
  rows: string[][]
  /** Collapsed under its title. @default false */
  collapsed?: boolean
}

/** One section of the report. */
export interface ReportSection {
  id: string
  title: string
  notes: string[]
  charts: ChartSpec[]
  tables: ReportTable[]
}

/** A result to report, with the verdicts of its checks when a Vitest run gave them. */
export interface ReportResult {
  name: string
  result: Record<string, unknown>
  verdicts?: Verdict[]
  /** The stored baseline's per-request samples (ms) by family, drawn beside this run's. */
  baseline?: Partial<Record<'ttft' | 'itl' | 'e2el', number[]>>
  /** A point of a combined sweep file: the file's name, what it swept and this point's value. */
  sweep?: { name: string; parameter: SweepParameter; value: number }
}

/** What the report is made of. */
export interface ReportContent {
  results: ReportResult[]
  /** The history file's entries: one trend chart per metric. */
  history?: HistoryEntry[]
  /** Capacity searches (`servebench capacity`, a suite's capacity benchmark), each with its name. */
  capacities?: Array<{ name: string; file: CapacityResultFile }>
}

const VERDICT_COLOR = {
  pass: '#2ca02c',
  fail: '#d62728',
  inconclusive: '#ff7f0e',
  invalid: '#7f7f7f',
} as const
// The families with per-request samples (TPOT is one number per request, drawn from percentiles).
const FAMILIES = LATENCY_METRICS.filter(
  (m): m is Extract<(typeof LATENCY_METRICS)[number], { key: 'ttft' | 'itl' | 'e2el' }> => m.key !== 'tpot',
)
// What one sample of a family is: a request's TTFT or E2EL, but one token gap of many for ITL.
const COUNTED = { ttft: 'requests', itl: 'token gaps', e2el: 'requests' } as const
const HEADLINE_KEYS = [
  'completed',
  'failed',
  'duration',
  'request_throughput',
  'output_throughput',
  'total_token_throughput',
  'mean_ttft_ms',
  'median_ttft_ms',
  'p99_ttft_ms',
  'mean_tpot_ms',
  'p99_tpot_ms',
  'mean_itl_ms',
  'p99_itl_ms',
  'mean_e2el_ms',
  'p99_e2el_ms',
  'max_concurrent_requests',
] as const

/**
 * Every section, in reading order: each capacity search, the comparison of the two results outside
 * any sweep, each sweep, each benchmark (a sweep's points in the order of the value swept), history.
 */
export function reportSections(content: ReportContent): ReportSection[] {
  const sections: ReportSection[] = (content.capacities ?? []).map((c, i) =>
    capacitySection(i === 0 ? 'capacity' : `capacity-${i}`, c.name, c.file),
  )
  const { groups, rest } = sweepGroups(content.results)
  if (rest.length === 2) sections.push(comparisonSection(rest[0]!, rest[1]!))
  groups.forEach((g, i) => {
    sections.push(sweepSection(i === 0 ? 'sweep' : `sweep-${i}`, g))
  })
  ;[...groups.flatMap((g) => g.results), ...rest].forEach((r, i) => {
    sections.push(benchmarkSection(`b${i}`, r))
  })
  if (content.history && content.history.length > 0) sections.push(historySection(content.history))
  return sections
}

/** One benchmark: distributions, time series, server series, checks, configuration, self-check. */
export function benchmarkSection(id: string, r: ReportResult): ReportSection {
  const series = requestSeries(r.result)
  const checks = (r.verdicts ?? []).filter((v) => v.matcher !== 'toMatchBaseline').flatMap((v) => v.checks)
  const charts: ChartSpec[] = []
  const notes: string[] = []
  if (series) {
    for (const f of FAMILIES) {
      const values = series[`${f.key}Ms` as keyof RequestSeries] as number[]
      if (values.length === 0) continue
      const marks = boundMarks(checks.filter((c) => f.test.test(c.metric)))
      const base = r.baseline?.[f.key]
      const samples =
        base && base.length > 0
          ? [
              { label: `${f.label} (this run)`, values },
              { label: `${f.label} (baseline)`, values: base },
            ]
          : [{ label: f.label, values }]
      const counted = COUNTED[f.key]
      charts.push(
        cdfChart(`${id}-${f.key}-cdf`, `${f.label} distribution (CDF)`, samples, marks, counted),
        histogramChart(
          `${id}-${f.key}-hist`,
          `${f.label} histogram`,
          values,
          marks,
          f.key === 'itl' && series.itlStride > 1 ? `token gaps (1 in ${series.itlStride} drawn)` : counted,
        ),
      )
    }
    charts.push(...throughputCharts(id, series, steadyWindow(r.result)))
  } else {
    const percentiles = percentileCharts(id, [{ label: r.name, result: r.result }], (metric) => [
      ...meanMark(r.result, metric),
      ...boundMarks(
        checks.filter((c) => LATENCY_METRICS.find((m) => m.key === metric)!.test.test(c.metric)),
        'y',
      ),
    ])
    charts.push(...percentiles)
    notes.push(
      percentiles.length > 0
        ? 'No per-request data in this result: its latencies are drawn from its percentiles (save it with --save-detailed for distributions and time series).'
        : 'No per-request data in this result (save it with --save-detailed): distributions and time series are left out.',
    )
  }
  const server = readServerMetrics(r.result.server_metrics)
  if (server) charts.push(...serverCharts(id, server, series))
  const tables: ReportTable[] = [headlineTable(r.result)]
  if (r.verdicts && r.verdicts.length > 0) tables.push(checksTable(r.verdicts))
  tables.push({ title: 'Configuration', head: ['key', 'value'], rows: configRows(r.result), collapsed: true })
  const health = r.result.client_health
  if (health && typeof health === 'object')
    tables.push({
      title: 'Client self-check',
      head: ['key', 'value'],
      rows: flatRows(health as Record<string, unknown>),
      collapsed: true,
    })
  return { id, title: r.name, notes, charts, tables }
}

/** Two results side by side: overlaid distributions and the delta table. */
export function comparisonSection(a: ReportResult, b: ReportResult): ReportSection {
  const sa = requestSeries(a.result)
  const sb = requestSeries(b.result)
  const charts: ChartSpec[] = []
  const both = [
    { label: a.name, result: a.result },
    { label: b.name, result: b.result },
  ]
  if (sa && sb) {
    for (const f of FAMILIES) {
      const key = `${f.key}Ms` as 'ttftMs' | 'itlMs' | 'e2elMs'
      if (sa[key].length === 0 || sb[key].length === 0) continue
      charts.push(
        cdfChart(
          `cmp-${f.key}`,
          `${f.label} distribution (CDF), side by side`,
          [
            { label: a.name, values: sa[key] },
            { label: b.name, values: sb[key] },
          ],
          [],
          COUNTED[f.key],
        ),
      )
    }
  } else charts.push(...percentileCharts('cmp', both))
  charts.push(...throughputBars('cmp', both))
  const rows = compareDeltaRows({ path: a.name, result: a.result }, { path: b.name, result: b.result })
  return {
    id: 'comparison',
    title: `Comparison: ${a.name} → ${b.name}`,
    notes:
      sa && sb
        ? []
        : [
            'Per-request data is missing from one of the results: the latencies are compared by their percentiles.',
          ],
    charts,
    tables: [
      {
        title: 'Changes',
        head: ['metric', a.name, b.name, 'change', 'interval', 'verdict'],
        rows: rows.map((row) => [
          row.metric,
          row.base === null ? '–' : num(row.base, row.unit),
          num(row.head, row.unit),
          row.change === null ? '–' : percent(row.change),
          row.interval ? `${percent(row.interval[0])} … ${percent(row.interval[1])}` : '–',
          `${MARKS[row.verdict]} ${row.verdict}`,
        ]),
      },
    ],
  }
}

/** One chart per metric of each benchmark and fingerprint in the history. */
export function historySection(entries: readonly HistoryEntry[]): ReportSection {
  const trends = historyTrends(entries)
  const charts = trends.map((t: HistoryTrend, i) =>
    trendChart(
      `trend-${i}`,
      `${t.benchmark}: ${t.metric}`,
      t.metric.endsWith('_ms') ? 'ms' : t.metric === 'request_throughput' ? 'req/s' : 'tok/s',
      t.points,
    ),
  )
  const runs = new Set(entries.map((e) => `${e.commit}\u0000${e.date}`)).size
  return {
    id: 'history',
    title: 'History',
    notes: [`${entries.length} entries from ${runs} runs.`],
    charts,
    tables: [],
  }
}

// Each SLO bound as a line across the value axis: x on a distribution, y on a percentile curve.
function boundMarks(checks: readonly VerdictCheck[], axis: 'x' | 'y' = 'x'): ChartMark[] {
  return checks
    .filter((c) => Number.isFinite(c.limit))
    .map((c) => ({
      axis,
      value: c.limit,
      label: `${c.metric} ≤ ${num(c.limit, c.unit)} ${MARKS[c.verdict]} ${c.verdict}`,
      color: VERDICT_COLOR[c.verdict],
    }))
}

function meanMark(result: Record<string, unknown>, metric: string): ChartMark[] {
  const mean = numberAt(result, `mean_${metric}_ms`)
  return mean === undefined
    ? []
    : [{ axis: 'y', value: mean, label: `mean ${num(mean, 'ms')}`, color: '#777' }]
}

// A baseline check's interval is of the relative change (`+28.2% … +32.0%`, as the Markdown
// shows it); an SLO check's is of the value itself, in its unit.
function checksTable(verdicts: readonly Verdict[]): ReportTable {
  const rows = verdicts.flatMap((v) =>
    v.checks.map((c) => [
      v.matcher,
      c.metric,
      num(c.actual, c.unit),
      num(c.limit, c.unit),
      c.interval
        ? v.matcher === 'toMatchBaseline'
          ? `${percent(c.interval[0])} … ${percent(c.interval[1])}`
          : `${num(c.interval[0], c.unit)} … ${num(c.interval[1], c.unit)}`
        : '–',
      `${MARKS[c.verdict]} ${c.verdict}`,
    ]),
  )
  return {
    title: 'Checks',
    head: ['matcher', 'metric', 'value', 'bound / baseline', 'interval', 'verdict'],
    rows,
  }
}

function headlineTable(result: Record<string, unknown>): ReportTable {
  const rows = HEADLINE_KEYS.flatMap((k) => {
    const v = numberAt(result, k)
    return v === undefined ? [] : [[k, num(v)]]
  })
  return { title: 'Summary', head: ['metric', 'value'], rows }
}

// The result's scalar keys that are not statistics: what was run, against what.
function configRows(result: Record<string, unknown>): string[][] {
  const statistic =
    /^(mean|median|std|p\d+(\.\d+)?)_|_throughput$|^(completed|failed|duration|total_|request_goodput)/
  return Object.entries(result)
    .filter(([k, v]) => (typeof v !== 'object' || v === null) && !statistic.test(k))
    .map(([k, v]) => [k, String(v)])
}

function flatRows(o: Record<string, unknown>): string[][] {
  return Object.entries(o).map(([k, v]) => [
    k,
    typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v),
  ])
}

function steadyWindow(result: Record<string, unknown>): { startS: number; endS: number } | undefined {
  const w = (result.steady_state as { window?: { start_s?: unknown; end_s?: unknown } } | null | undefined)
    ?.window
  return typeof w?.start_s === 'number' && typeof w.end_s === 'number'
    ? { startS: w.start_s, endS: w.end_s }
    : undefined
}

function numberAt(o: Record<string, unknown>, key: string): number | undefined {
  const v = o[key]
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}
