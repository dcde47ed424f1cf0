/**
 * The chart specifications of the HTML report: plain data (x values, series, bound marks, a
 * shaded window) that the page's script hands to uPlot. One builder per chart family: latency
 * distributions, throughput and requests in flight over time, a sweep's latency against
 * throughput with its knee, and history trends (the server's series: `server-charts.ts`). Pure.
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
  }
  let gapCount = 0
  for (const gaps of itls) if (Array.isArray(gaps)) gapCount += gaps.length
  const stride = Math.max(1, Math.ceil(gapCount / MAX_ITL_SAMPLES))
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

/** The empirical CDF of `values` (at most 400 points), one or more series (a comparison). */
export function cdfChart(
  id: string,
  title: string,
  samples: ReadonlyArray<{ label: string; values: readonly number[] }>,
  marks: ChartMark[] = [],
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
  return { id, title, kind: 'step', xLabel: 'ms', yLabel: 'fraction of requests', x, series, marks }
}

/** A histogram of `values` in 30 equal bins (bin centres on x), with bound marks. */
export function histogramChart(
  id: string,
  title: string,
  values: readonly number[],
  marks: ChartMark[] = [],
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
    yLabel: 'requests',
    x,
    series: [{ label: 'requests', values: counts, color: COLORS[0] }],
    marks,
  }
}

/**
 * Completed requests per second and output tokens per second in time bins, and requests in flight
 * (sampled at each bin's end); the steady-state window shaded.
 */
export function throughputCharts(
  idPrefix: string,
  r: RequestSeries,
  window?: { startS: number; endS: number },
): ChartSpec[] {
  const endS = extent(r.endS)[1]
  const binS = niceBin(endS / 60)
  const bins = Math.max(1, Math.ceil(endS / binS))
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
      kind: 'step',
      xLabel: 's',
      yLabel: 'req/s',
      y2Label: 'output tok/s',
      x,
      series: [
        { label: 'completed req/s', values: done, color: COLORS[0] },
        { label: 'output tok/s', values: tokens, color: COLORS[2], scale: 'y2' },
      ],
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
      ...(band ? { band } : {}),
    },
  ]
}

/** One sweep point: its throughput and latencies. */
export interface SweepPointData {
  label: string
  throughput: number
  latencies: Record<string, number>
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

/** Latency against throughput over a sweep's points, the knee marked. */
export function sweepChart(id: string, points: readonly SweepPointData[]): ChartSpec {
  const sorted = [...points].sort((a, b) => a.throughput - b.throughput)
  const keys = [...new Set(sorted.flatMap((p) => Object.keys(p.latencies)))]
  const knee = kneeIndex(
    sorted.map((p) => ({ x: p.throughput, y: p.latencies[keys[keys.length - 1]!] ?? 0 })),
  )
  const marks: ChartMark[] =
    knee === undefined
      ? []
      : [{ axis: 'x', value: sorted[knee]!.throughput, label: `knee: ${sorted[knee]!.label}`, color: '#555' }]
  return {
    id,
    title: 'Latency against throughput',
    kind: 'line',
    xLabel: 'output tok/s',
    yLabel: 'ms',
    x: sorted.map((p) => p.throughput),
    series: keys.map((k, i) => ({
      label: k,
      values: sorted.map((p) => p.latencies[k] ?? null),
      color: COLORS[i % COLORS.length]!,
    })),
    marks,
  }
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
