/**
 * The chart specifications of the HTML report: plain data (x values, series, bound marks, a
 * shaded window) that the page's script hands to uPlot. One builder per chart family: latency
 * distributions, throughput and requests in flight over time, and history trends (a sweep:
 * `sweep-charts.ts`; percentiles of a result without per-request arrays: `percentile-charts.ts`;
 * the server's series: `server-charts.ts`). Pure.
 */
/** One series of a chart. */
export interface ChartSeries {
  label: string
  values: Array<number | null>
  color: string
  /** How the series is drawn. @default the chart's `kind` */
  kind?: ChartKind
  /** `y2`: the right-hand axis. @default 'y' */
  scale?: 'y' | 'y2'
  /** Line width in CSS pixels. @default 1.5 */
  width?: number
  /** A point drawn at each value of a line. @default false */
  markers?: boolean
  /** Bars side by side: this series is bar `index` of `count` at each x. */
  barGroup?: { index: number; count: number }
}

export type ChartKind = 'line' | 'step' | 'bars' | 'points'

/** A vertical (`x`) or horizontal (`y`) line with its label, e.g. an SLO bound and its verdict. */
export interface ChartMark {
  axis: 'x' | 'y'
  value: number
  label: string
  color: string
}

/** One chart as the page draws it. */
export interface ChartSpec {
  id: string
  title: string
  kind: ChartKind
  xLabel: string
  yLabel: string
  y2Label?: string
  x: number[]
  series: ChartSeries[]
  marks?: ChartMark[]
  /** A shaded x range (the steady-state window). */
  band?: { from: number; to: number; label: string }
  /** Tick labels of a categorical x axis (x = 0, 1, …): commits of a history trend. */
  xTicks?: string[]
  /** Both y axes start at 0 (counts, rates, latency percentiles), whatever the data's minimum. */
  yFromZero?: boolean
}

/** Per-request data of a result, on a time axis starting at its first request (s). */
export interface RequestSeries {
  startS: number[]
  endS: number[]
  ttftMs: number[]
  e2elMs: number[]
  itlMs: number[]
  outputLens: number[]
  /** The first request's start on the result's clock (`start_times`), s. */
  originS: number
  /** `itlMs` holds every k-th token gap (1: all of them), so a huge run stays drawable. */
  itlStride: number
}

export const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'] as const
const MAX_CDF_POINTS = 400
// A long run has tens of millions of token gaps; every k-th one draws the same distribution.
const MAX_ITL_SAMPLES = 200_000
const HISTOGRAM_BINS = 30

/** The successful requests of a result with per-request arrays; undefined without them. */
export function requestSeries(result: Record<string, unknown>): RequestSeries | undefined {
  const starts = numbers(result.start_times)
  const latencies = numbers(result.latencies)
  const ttfts = numbers(result.ttfts)
  if (!starts || !latencies || starts.length !== latencies.length || starts.length === 0) return undefined
  const errors = Array.isArray(result.errors) ? (result.errors as unknown[]) : []
  const outputs = numbers(result.output_lens) ?? []
  const itls = Array.isArray(result.itls) ? (result.itls as unknown[]) : []
  const originS = extent(starts)[0]
  const out: RequestSeries = {
    startS: [],
    endS: [],
    ttftMs: [],
    e2elMs: [],
    itlMs: [],
    outputLens: [],
    originS,
    itlStride: 1,
  }
  let gapCount = 0
  for (const gaps of itls) if (Array.isArray(gaps)) gapCount += gaps.length
  const stride = Math.max(1, Math.ceil(gapCount / MAX_ITL_SAMPLES))
  out.itlStride = stride
  let gapIndex = 0
  for (let i = 0; i < starts.length; i++) {
    if ((errors[i] !== undefined && errors[i] !== '') || !(latencies[i]! > 0)) continue
    out.startS.push(starts[i]! - originS)
    out.endS.push(starts[i]! - originS + latencies[i]!)
    out.e2elMs.push(latencies[i]! * 1000)
    if (ttfts) out.ttftMs.push(ttfts[i]! * 1000)
    out.outputLens.push(outputs[i] ?? 0)
    const gaps = itls[i]
    if (Array.isArray(gaps))
      for (const g of gaps) if (typeof g === 'number' && gapIndex++ % stride === 0) out.itlMs.push(g * 1000)
  }
  return out
}

/**
 * The empirical CDF of `values` (at most 400 points), one or more series (a comparison); `counted`
 * names what a value is (`requests`, or `token gaps` for ITL), for the y axis.
 */
export function cdfChart(
  id: string,
  title: string,
  samples: ReadonlyArray<{ label: string; values: readonly number[] }>,
  marks: ChartMark[] = [],
  counted = 'requests',
): ChartSpec {
  const xs = new Set<number>()
  const sorted = samples.map((s) => [...s.values].sort((a, b) => a - b))
  for (const values of sorted) for (const v of thin(values)) xs.add(v)
  const x = [...xs].sort((a, b) => a - b)
  const series = sorted.map((values, k) => ({
    label: samples[k]!.label,
    color: COLORS[k % COLORS.length]!,
    values: x.map((v) => (values.length === 0 ? null : upperBound(values, v) / values.length)),
  }))
  return { id, title, kind: 'step', xLabel: 'ms', yLabel: `fraction of ${counted}`, x, series, marks }
}

/**
 * A histogram of `values` in 30 equal bins (bin centres on x), with bound marks; `counted` names
 * what a bar counts (`requests`; `token gaps` for ITL, where one request gives many).
 */
export function histogramChart(
  id: string,
  title: string,
  values: readonly number[],
  marks: ChartMark[] = [],
  counted = 'requests',
): ChartSpec {
  const [min, max] = extent(values)
  const width = max > min ? (max - min) / HISTOGRAM_BINS : 1
  const counts = new Array<number>(HISTOGRAM_BINS).fill(0)
  for (const v of values) counts[Math.min(HISTOGRAM_BINS - 1, Math.floor((v - min) / width))]! += 1
  const x = counts.map((_, i) => min + (i + 0.5) * width)
  return {
    id,
    title,
    kind: 'bars',
    xLabel: 'ms',
    yLabel: counted,
    x,
    series: [{ label: counted, values: counts, color: COLORS[0] }],
    marks,
    yFromZero: true,
  }
}

/**
 * Completed requests per second and output tokens per second in time bins, and requests in flight
 * (sampled at each bin's end); the steady-state window shaded. Output tokens are bars on the right
 * axis and requests a heavier line over them: with a fixed output length the two series have the
 * same shape, and two lines on their own axes would be drawn one over the other.
 */
export function throughputCharts(
  idPrefix: string,
  r: RequestSeries,
  window?: { startS: number; endS: number },
): ChartSpec[] {
  const endS = extent(r.endS)[1]
  const binS = niceBin(endS / 60)
  const bins = Math.max(1, Math.ceil(endS / binS))
  // Rates are drawn at their bin's centre; requests in flight are sampled at each bin's end.
  const centres = Array.from({ length: bins }, (_, i) => (i + 0.5) * binS)
  const x = Array.from({ length: bins }, (_, i) => (i + 1) * binS)
  const done = new Array<number>(bins).fill(0)
  const tokens = new Array<number>(bins).fill(0)
  r.endS.forEach((e, i) => {
    const b = Math.min(bins - 1, Math.floor(e / binS))
    done[b]! += 1 / binS
    tokens[b]! += (r.outputLens[i] ?? 0) / binS
  })
  const inFlight = x.map((t) => r.startS.filter((s, i) => s <= t && r.endS[i]! > t).length)
  const band = window ? { from: window.startS, to: window.endS, label: 'steady state' } : undefined
  return [
    {
      id: `${idPrefix}-throughput`,
      title: 'Throughput over time',
      kind: 'line',
      xLabel: 's',
      yLabel: 'completed req/s',
      y2Label: 'output tok/s',
      x: centres,
      series: [
        { label: 'output tok/s', values: tokens, color: COLORS[2], scale: 'y2', kind: 'bars' },
        { label: 'completed req/s', values: done, color: COLORS[0], width: 2.5, markers: true },
      ],
      yFromZero: true,
      ...(band ? { band } : {}),
    },
    {
      id: `${idPrefix}-inflight`,
      title: 'Requests in flight',
      kind: 'step',
      xLabel: 's',
      yLabel: 'requests',
      x,
      series: [{ label: 'in flight', values: inFlight, color: COLORS[3] }],
      yFromZero: true,
      ...(band ? { band } : {}),
    },
  ]
}

/** A history trend: one value per run (x = run index, ticks = short commits or dates). */
export function trendChart(
  id: string,
  title: string,
  unit: string,
  points: ReadonlyArray<{ commit: string | null; date: string; value: number }>,
): ChartSpec {
  return {
    id,
    title,
    kind: 'line',
    xLabel: 'run',
    yLabel: unit,
    x: points.map((_, i) => i),
    xTicks: points.map((p) => p.commit?.slice(0, 7) ?? p.date.slice(0, 16)),
    series: [{ label: title, values: points.map((p) => p.value), color: COLORS[0] }],
  }
}

/** The smallest and largest value, in a loop: spreading 100,000 values into Math.min overflows the stack. */
export function extent(values: ArrayLike<number>): [number, number] {
  let lo = Number.POSITIVE_INFINITY
  let hi = Number.NEGATIVE_INFINITY
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    if (v < lo) lo = v
    if (v > hi) hi = v
  }
  return [lo, hi]
}

function niceBin(rawS: number): number {
  for (const b of [0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60]) if (rawS <= b) return b
  return 60
}

// A sorted sample thinned to at most MAX_CDF_POINTS values, the extremes kept.
function thin(sorted: readonly number[]): number[] {
  if (sorted.length <= MAX_CDF_POINTS) return [...sorted]
  const step = (sorted.length - 1) / (MAX_CDF_POINTS - 1)
  return Array.from({ length: MAX_CDF_POINTS }, (_, i) => sorted[Math.round(i * step)]!)
}

// Count of values ≤ v in a sorted array.
function upperBound(sorted: readonly number[], v: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid]! <= v) lo = mid + 1
    else hi = mid
  }
  return lo
}

function numbers(v: unknown): number[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === 'number') ? (v as number[]) : undefined
}
