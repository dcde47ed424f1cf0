/**
 * A sweep in the HTML report: the points of a combined sweep file (`--sweep-* --save-result`) or
 * of result files that differ in one load parameter, in the order of the value swept; their
 * latencies and output throughput against that value, the knee marked; the Pareto frontier of
 * tokens/s per user against tokens/s per GPU (`pareto-chart.ts`); and a table of the points.
 * Pure.
 */
import { type SweepParameter, sweepLabel } from '../result/sweep.ts'
import { num } from '../summary/pr-comment.ts'
import { paretoChart } from './pareto-chart.ts'
import { type ChartMark, type ChartSpec, COLORS, extent } from './report-charts.ts'
import type { ReportResult, ReportSection } from './report-sections.ts'

/** One sweep point: the value swept, its throughput and latencies. */
export interface SweepPointData {
  label: string
  value: number
  throughput: number
  latencies: Record<string, number>
}

/** Results drawn as one sweep: its points in the order of the value swept. */
export interface SweepGroup {
  /** The combined file's name, or `sweep` for result files found to form one. */
  name: string
  parameter: SweepParameter
  results: ReportResult[]
}

const AXIS_LABELS: Record<SweepParameter, string> = {
  max_concurrency: 'max concurrency',
  request_rate: 'request rate (req/s)',
}
const LATENCY_KEYS = ['mean_ttft_ms', 'p99_ttft_ms', 'p99_e2el_ms'] as const
// Throughput is green in every chart of the report; the latencies take the other colours.
const LATENCY_COLORS = [COLORS[0], COLORS[1], COLORS[3]] as const

/**
 * The points of a combined sweep file (`mode: "sweep"`), each a result named
 * `<file> › concurrency=8`; undefined for any other file.
 */
export function sweepFileResults(name: string, file: Record<string, unknown>): ReportResult[] | undefined {
  const parameter = file.sweep_parameter
  if (file.mode !== 'sweep' || !Array.isArray(file.points)) return undefined
  if (parameter !== 'max_concurrency' && parameter !== 'request_rate') return undefined
  const values = Array.isArray(file.sweep_values) ? file.sweep_values : []
  return file.points.flatMap((point: unknown, i): ReportResult[] => {
    if (point === null || typeof point !== 'object') return []
    const result = point as Record<string, unknown>
    const value = asValue(values[i]) ?? sweptValue(result, parameter) ?? i
    return [
      {
        name: `${name} › ${sweepLabel(parameter, value)}`,
        result,
        sweep: { name, parameter, value },
      },
    ]
  })
}

/**
 * The runs of a `servebench sweep` summary.json (a list of results with the point's parameters),
 * each a point named `<experiment> › concurrency=8`, swept by the load parameter in which they
 * differ (max concurrency when neither or both do).
 */
export function sweepRunsResults(name: string, runs: ReadonlyArray<Record<string, unknown>>): ReportResult[] {
  const parameter = sweptParameter(runs) ?? 'max_concurrency'
  return runs.map((result, i) => {
    const value = sweptValue(result, parameter) ?? i
    const run =
      typeof result.run_number === 'number' && result.run_number > 0 ? ` run ${result.run_number}` : ''
    return {
      name: `${name} › ${sweepLabel(parameter, value)}${run}`,
      result,
      sweep: { name, parameter, value },
    }
  })
}

/**
 * The sweeps among `results`: the points of each combined file, and the other results when there
 * are three or more and they differ in `max_concurrency` or in `request_rate` (not both); each
 * sweep's points ordered by that value. `rest`: the results in no sweep, in their order.
 */
export function sweepGroups(results: readonly ReportResult[]): {
  groups: SweepGroup[]
  rest: ReportResult[]
} {
  const groups = new Map<string, SweepGroup>()
  const loose: ReportResult[] = []
  for (const r of results) {
    if (!r.sweep) {
      loose.push(r)
      continue
    }
    const group = groups.get(r.sweep.name) ?? {
      name: r.sweep.name,
      parameter: r.sweep.parameter,
      results: [],
    }
    group.results.push(r)
    groups.set(r.sweep.name, group)
  }
  const parameter = loose.length >= 3 ? sweptParameter(loose.map((r) => r.result)) : undefined
  const all = [...groups.values()]
  if (parameter) all.push({ name: 'sweep', parameter, results: loose })
  for (const g of all) {
    const value = (r: ReportResult): number => r.sweep?.value ?? sweptValue(r.result, g.parameter) ?? 0
    g.results = [...g.results].sort((a, b) => (value(a) === value(b) ? 0 : value(a) < value(b) ? -1 : 1))
  }
  return { groups: all, rest: parameter ? [] : loose }
}

/** The load parameter in which results differ: concurrency or rate, undefined for both or neither. */
export function sweptParameter(results: ReadonlyArray<Record<string, unknown>>): SweepParameter | undefined {
  const varies = (p: SweepParameter): boolean => {
    const values = results.map((r) => sweptValue(r, p))
    return values.every((v) => v !== undefined) && new Set(values).size > 1
  }
  const concurrency = varies('max_concurrency')
  const rate = varies('request_rate')
  return concurrency === rate ? undefined : concurrency ? 'max_concurrency' : 'request_rate'
}

/** A result's `max_concurrency` or `request_rate` (`inf` or `Infinity`: Infinity). */
export function sweptValue(result: Record<string, unknown>, parameter: SweepParameter): number | undefined {
  return asValue(result[parameter])
}

/** A sweep: latency and throughput against the value swept, the knee marked; a table of points. */
export function sweepSection(id: string, group: SweepGroup): ReportSection {
  const outputs = group.results.every((r) => numberAt(r.result, 'output_throughput') !== undefined)
  const throughputKey = outputs ? 'output_throughput' : 'request_throughput'
  const points: SweepPointData[] = group.results.map((r, i) => ({
    label: sweepLabel(group.parameter, r.sweep?.value ?? sweptValue(r.result, group.parameter) ?? i),
    value: r.sweep?.value ?? sweptValue(r.result, group.parameter) ?? i,
    throughput: numberAt(r.result, throughputKey) ?? 0,
    latencies: Object.fromEntries(
      LATENCY_KEYS.flatMap((k) => {
        const v = numberAt(r.result, k)
        return v === undefined ? [] : [[k, v]]
      }),
    ),
  }))
  const chart = sweepChart(`${id}-latency`, group.parameter, points, outputs ? 'output tok/s' : 'req/s')
  const pareto = paretoChart(
    `${id}-pareto`,
    group.results.map((r) => r.result),
  )
  const knee = chart.marks?.[0]
  const kneeOn = chart.series.at(-1)?.label
  const column = group.parameter === 'max_concurrency' ? 'concurrency' : 'rate (req/s)'
  return {
    id,
    title: group.name === 'sweep' ? 'Sweep' : `Sweep: ${group.name}`,
    notes: knee
      ? [
          `The knee (Kneedle on ${kneeOn} against ${outputs ? 'output' : 'request'} throughput) is at ${knee.label.replace(/^knee: /, '')}.`,
        ]
      : [],
    charts: pareto ? [chart, pareto] : [chart],
    tables: [
      {
        title: 'Points',
        head: [
          column,
          'completed',
          'failed',
          'req/s',
          'output tok/s',
          'mean TTFT (ms)',
          'p99 TTFT (ms)',
          'p99 E2EL (ms)',
        ],
        rows: group.results.map((r, i) => [
          tick(points[i]!.value),
          ...['completed', 'failed', 'request_throughput', 'output_throughput', ...LATENCY_KEYS].map((k) =>
            cell(r.result, k),
          ),
        ]),
      },
    ],
  }
}

/**
 * Latencies (lines, ms) and throughput (bars, right axis) against the value swept, one category
 * per point in the order given; the knee marked at its point.
 */
export function sweepChart(
  id: string,
  parameter: SweepParameter,
  points: readonly SweepPointData[],
  throughputUnit = 'output tok/s',
): ChartSpec {
  const keys = LATENCY_KEYS.filter((k) => points.some((p) => p.latencies[k] !== undefined))
  // Kneedle reads the curve in throughput order; the mark goes on the point it picks.
  const byThroughput = points.map((p, i) => ({ p, i })).sort((a, b) => a.p.throughput - b.p.throughput)
  const key = keys[keys.length - 1]
  const knee = key
    ? kneeIndex(byThroughput.map(({ p }) => ({ x: p.throughput, y: p.latencies[key] ?? 0 })))
    : undefined
  const marks: ChartMark[] = []
  if (knee !== undefined) {
    const at = byThroughput[knee]!.i
    marks.push({ axis: 'x', value: at, label: `knee: ${points[at]!.label}`, color: '#555' })
  }
  return {
    id,
    title: 'Latency and throughput by load',
    kind: 'line',
    xLabel: AXIS_LABELS[parameter],
    yLabel: 'ms',
    y2Label: throughputUnit,
    x: points.map((_, i) => i),
    xTicks: points.map((p) => tick(p.value)),
    series: [
      {
        label: throughputUnit,
        values: points.map((p) => p.throughput),
        color: COLORS[2],
        kind: 'bars',
        scale: 'y2',
      },
      ...keys.map((k, i) => ({
        label: k,
        values: points.map((p) => p.latencies[k] ?? null),
        color: LATENCY_COLORS[i % LATENCY_COLORS.length]!,
        markers: true,
      })),
    ],
    marks,
    yFromZero: true,
  }
}

/**
 * The knee of a latency-throughput curve (points in throughput order): the point farthest below
 * the chord from the first to the last point once both axes are scaled to 0–1 (Kneedle); the last
 * point on a curve with no bend. Undefined for fewer than 3 points.
 */
export function kneeIndex(points: ReadonlyArray<{ x: number; y: number }>): number | undefined {
  if (points.length < 3) return undefined
  const xs = points.map((p) => p.x)
  const ys = points.map((p) => p.y)
  const [[x0, x1], [y0, y1]] = [extent(xs), extent(ys)]
  if (x1 === x0 || y1 === y0) return points.length - 1
  const n = points.map((p) => ({ x: (p.x - x0) / (x1 - x0), y: (p.y - y0) / (y1 - y0) }))
  const a = n[0]!
  const b = n[n.length - 1]!
  let best = points.length - 1
  let bestD = 0
  n.forEach((p, i) => {
    // Below the chord (latency still low for its throughput) is where the curve bends up after.
    const chordY = a.y + ((p.x - a.x) * (b.y - a.y)) / (b.x - a.x || 1)
    const d = chordY - p.y
    if (d > bestD) {
      bestD = d
      best = i
    }
  })
  return best
}

function tick(value: number): string {
  return Number.isFinite(value) ? String(value) : 'inf'
}

function cell(result: Record<string, unknown>, key: string): string {
  const v = numberAt(result, key)
  return v === undefined ? '–' : num(v)
}

function asValue(v: unknown): number | undefined {
  if (typeof v === 'number' && !Number.isNaN(v)) return v
  return v === 'inf' ? Number.POSITIVE_INFINITY : undefined
}

function numberAt(o: Record<string, unknown>, key: string): number | undefined {
  const v = o[key]
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}
