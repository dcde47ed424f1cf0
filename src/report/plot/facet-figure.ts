/**
 * A grid of x–y panels drawn on servebench's own raster: the figures of `servebench sweep plot`
 * (seaborn's FacetGrid of line plots in vllm/benchmarks/sweep/plot.py: one panel per row × column
 * group, one curve per curve group) and `sweep plot_pareto` (a scatter of every run with the
 * frontier drawn over it). Curves are lines with a marker at each point; scatter series are
 * translucent points. Linear, log or square-root axes. Pure: returns the canvas, or PNG bytes.
 */
import { formatTicks, niceTicks } from './dataset-stats-plot.ts'
import { encodePng } from './png.ts'
import { Canvas, type Rgb } from './raster.ts'

/** How an axis maps values: matplotlib's `linear` and `log`, and a square-root scale. */
export type AxisScale = 'linear' | 'log' | 'sqrt'

/** One series of a panel: its points in drawing order. */
export interface FigureSeries {
  label: string
  points: ReadonlyArray<readonly [number, number]>
  /** `line`: joined, a marker at each point; `scatter`: points only. @default 'line' */
  kind?: 'line' | 'scatter'
  /** @default a colour of the palette, by the series' index among the legend's labels */
  color?: Rgb
}

/** One panel: its title (empty for none) and its series. */
export interface FigurePanel {
  title: string
  series: FigureSeries[]
}

/** A figure: rows of panels sharing the axes' labels and scales, and one legend. */
export interface FacetFigure {
  rows: FigurePanel[][]
  xLabel: string
  yLabel: string
  xScale?: AxisScale
  yScale?: AxisScale
  /** The legend's title (seaborn titles it with the hue variable). */
  legendTitle?: string
}

/** matplotlib's tab10 palette, the one seaborn uses for hues. */
export const PALETTE: readonly Rgb[] = [
  [31, 119, 180],
  [255, 127, 14],
  [44, 160, 44],
  [214, 39, 40],
  [148, 103, 189],
  [140, 86, 75],
  [227, 119, 194],
  [127, 127, 127],
  [188, 189, 34],
  [23, 190, 207],
]

const PANEL_W = 520
const PANEL_H = 380
const MARGIN_LEFT = 120
const MARGIN_TOP = 70
const GAP_X = 130
const GAP_Y = 130
const LEGEND_W = 300
const BLACK: Rgb = [0, 0, 0]
const GRID: Rgb = [222, 222, 222]
const SMALL = 2

/** Where one panel lies on the canvas and the data range it shows (scaled values). */
export interface PanelFrame {
  left: number
  top: number
  width: number
  height: number
  xView: [number, number]
  yView: [number, number]
}

/** The drawn figure: its canvas, each panel's frame (row by row) and the legend's entries. */
export interface DrawnFigure {
  image: Canvas
  frames: PanelFrame[]
  legend: string[]
}

/** Draws the figure; points that the scale cannot show (non-finite, ≤ 0 on log) are left out. */
export function drawFacetFigure(figure: FacetFigure): DrawnFigure {
  const xScale = figure.xScale ?? 'linear'
  const yScale = figure.yScale ?? 'linear'
  const cols = Math.max(1, ...figure.rows.map((r) => r.length))
  const nRows = Math.max(1, figure.rows.length)
  const width = MARGIN_LEFT + cols * PANEL_W + (cols - 1) * GAP_X + 60 + LEGEND_W
  const height = MARGIN_TOP + nRows * PANEL_H + (nRows - 1) * GAP_Y + 110
  const image = new Canvas(width, height)
  const legend = [...new Set(figure.rows.flat().flatMap((p) => p.series.map((s) => s.label)))]
  const colorOf = (s: FigureSeries): Rgb =>
    s.color ?? PALETTE[Math.max(0, legend.indexOf(s.label)) % PALETTE.length]!
  const visible = (p: readonly [number, number]): [number, number] | undefined => {
    const x = scaled(p[0], xScale)
    const y = scaled(p[1], yScale)
    return x === undefined || y === undefined ? undefined : [x, y]
  }
  // Shared axes, as FacetGrid shares them by default.
  const all = figure.rows
    .flat()
    .flatMap((p) => p.series.flatMap((s) => s.points.flatMap((q) => visible(q) ?? [])))
  const xs = all.filter((_, i) => i % 2 === 0)
  const ys = all.filter((_, i) => i % 2 === 1)
  const xView = padded(xs)
  const yView = padded(ys)
  const frames: PanelFrame[] = []
  figure.rows.forEach((row, r) => {
    row.forEach((panel, c) => {
      const frame: PanelFrame = {
        left: MARGIN_LEFT + c * (PANEL_W + GAP_X),
        top: MARGIN_TOP + r * (PANEL_H + GAP_Y),
        width: PANEL_W,
        height: PANEL_H,
        xView,
        yView,
      }
      frames.push(frame)
      drawPanel(image, frame, panel, figure, colorOf, visible)
    })
  })
  const allSeries = figure.rows.flat().flatMap((p) => p.series)
  const seriesOf = (label: string): FigureSeries => allSeries.find((s) => s.label === label)!
  drawLegend(image, width - LEGEND_W - 20, MARGIN_TOP, figure, legend, seriesOf, colorOf)
  return { image, frames, legend }
}

/** The figure as a PNG file. */
export function facetFigurePng(figure: FacetFigure, title: string): Buffer {
  return encodePng(drawFacetFigure(figure).image, { Title: title, Software: 'servebench' })
}

/** Where the scaled value (x, y) lands in a panel, in device pixels. */
export function framePixel(frame: PanelFrame, x: number, y: number): [number, number] {
  return [
    frame.left + ((x - frame.xView[0]) / (frame.xView[1] - frame.xView[0])) * frame.width,
    frame.top + frame.height - ((y - frame.yView[0]) / (frame.yView[1] - frame.yView[0])) * frame.height,
  ]
}

/** A value on the scale's axis, or undefined where the scale has no place for it. */
export function scaled(value: number, scale: AxisScale): number | undefined {
  if (!Number.isFinite(value)) return undefined
  if (scale === 'log') return value > 0 ? Math.log10(value) : undefined
  if (scale === 'sqrt') return value >= 0 ? Math.sqrt(value) : undefined
  return value
}

function unscaled(value: number, scale: AxisScale): number {
  if (scale === 'log') return 10 ** value
  if (scale === 'sqrt') return value * value
  return value
}

function drawPanel(
  image: Canvas,
  frame: PanelFrame,
  panel: FigurePanel,
  figure: FacetFigure,
  colorOf: (s: FigureSeries) => Rgb,
  visible: (p: readonly [number, number]) => [number, number] | undefined,
): void {
  const xScale = figure.xScale ?? 'linear'
  const yScale = figure.yScale ?? 'linear'
  const xTicks = axisTicks(frame.xView, xScale, Math.floor(frame.width / 100))
  const yTicks = axisTicks(frame.yView, yScale, Math.floor(frame.height / 60))
  const bottom = frame.top + frame.height
  for (const t of yTicks) {
    const py = Math.round(framePixel(frame, 0, t.at)[1])
    image.fillRect(frame.left, py, frame.width, 1, GRID)
    image.fillRect(frame.left - 7, py, 6, 1, BLACK)
    image.text(frame.left - 12, py - 7, t.label, { scale: SMALL, color: BLACK, align: 'end' })
  }
  for (const t of xTicks) {
    const px = Math.round(framePixel(frame, t.at, 0)[0])
    image.fillRect(px, frame.top, 1, frame.height, GRID)
    image.fillRect(px, bottom + 1, 1, 6, BLACK)
    image.text(px, bottom + 12, t.label, { scale: SMALL, color: BLACK, align: 'middle' })
  }
  for (const s of panel.series) {
    const color = colorOf(s)
    const pts = s.points.flatMap((p) => {
      const v = visible(p)
      return v ? [framePixel(frame, v[0], v[1])] : []
    })
    if ((s.kind ?? 'line') === 'scatter') {
      for (const [px, py] of pts) image.disc(px, py, 5, color, 0.6)
      continue
    }
    for (let i = 1; i < pts.length; i++)
      image.line(pts[i - 1]![0], pts[i - 1]![1], pts[i]![0], pts[i]![1], color, 3)
    for (const [px, py] of pts) image.disc(px, py, 5, color)
  }
  image.strokeRect(frame.left - 1, frame.top - 1, frame.width + 2, frame.height + 2, BLACK)
  image.text(frame.left + frame.width / 2, bottom + 44, axisLabel(figure.xLabel, xScale), {
    scale: SMALL,
    color: BLACK,
    align: 'middle',
  })
  image.verticalText(frame.left - 110, frame.top + frame.height / 2, axisLabel(figure.yLabel, yScale), {
    scale: SMALL,
    color: BLACK,
    align: 'middle',
  })
  panel.title.split('\n').forEach((line, i, lines) => {
    image.text(frame.left + frame.width / 2, frame.top - 20 - (lines.length - 1 - i) * 20, line, {
      scale: SMALL,
      color: BLACK,
      align: 'middle',
    })
  })
}

function drawLegend(
  image: Canvas,
  left: number,
  top: number,
  figure: FacetFigure,
  labels: readonly string[],
  seriesOf: (label: string) => FigureSeries,
  colorOf: (s: FigureSeries) => Rgb,
): void {
  let y = top
  if (figure.legendTitle) {
    image.text(left, y, figure.legendTitle, { scale: SMALL, color: BLACK })
    y += 26
  }
  for (const label of labels) {
    const series = seriesOf(label)
    const color = colorOf(series)
    if ((series.kind ?? 'line') === 'line') image.line(left, y + 7, left + 36, y + 7, color, 3)
    image.disc(left + 18, y + 7, 5, color)
    image.text(left + 46, y, label, { scale: SMALL, color: BLACK })
    y += 26
  }
}

function axisTicks(
  view: [number, number],
  scale: AxisScale,
  maxTicks: number,
): Array<{ at: number; label: string }> {
  if (scale === 'log') {
    const ticks: Array<{ at: number; label: string }> = []
    for (let e = Math.ceil(view[0]); e <= Math.floor(view[1]); e++)
      ticks.push({ at: e, label: formatPower(e) })
    if (ticks.length > 0) return ticks
  }
  const lo = unscaled(view[0], scale)
  const hi = unscaled(view[1], scale)
  const raw = niceTicks(lo, hi, Math.max(2, maxTicks))
  const labels = formatTicks(raw)
  return raw.flatMap((t, i) => {
    const at = scaled(t, scale)
    return at === undefined || at < view[0] || at > view[1] ? [] : [{ at, label: labels[i]! }]
  })
}

function formatPower(e: number): string {
  const value = 10 ** e
  return e >= 0 && e <= 6 ? String(value) : `1e${e}`
}

function axisLabel(label: string, scale: AxisScale): string {
  return scale === 'linear' ? label : `${label} (${scale})`
}

// matplotlib's 5 % margins; one value gets a unit range around it.
function padded(values: readonly number[]): [number, number] {
  if (values.length === 0) return [0, 1]
  let lo = values[0]!
  let hi = lo
  for (const v of values) {
    if (v < lo) lo = v
    if (v > hi) hi = v
  }
  if (hi === lo) return [lo - 0.5, hi + 0.5]
  const pad = (hi - lo) * 0.05
  return [lo - pad, hi + pad]
}
