/**
 * The `--plot-dataset-stats` figure, `<result name>.dataset_stats.png`. Python
 * (`generate_dataset_stats_plot` in vllm/benchmarks/plot.py) draws it with matplotlib; servebench
 * rasterises the same four panels itself and encodes them with its own PNG writer:
 * prompt-token, output-token and total-token histograms (30 bins, numpy's edges) and the tokens of
 * each request as stacked bars, with titles, axis labels, tick labels, a light grid and a legend.
 * Python saves 14×10 in at 150 dpi; this figure is 1400×1000 pixels.
 */
import { encodePng } from './png.ts'
import { Canvas, type Rgb } from './raster.ts'

/** The per-request lengths the figure is drawn from (the result's `input_lens` and `output_lens`). */
export interface DatasetStatsInput {
  inputLens: readonly number[]
  outputLens: readonly number[]
}

/** numpy's `histogram(values, bins)`: `bins + 1` edges and the count in each bin. */
export interface Histogram {
  edges: number[]
  counts: number[]
}

/** A rectangle in device pixels. */
export interface PixelRect {
  left: number
  top: number
  width: number
  height: number
}

/** One panel of the figure: where its plot area lies and which data range it shows. */
export interface PlotPanel {
  title: string
  xLabel: string
  yLabel: string
  /** The plot area inside the axes' frame. */
  plot: PixelRect
  /** The data range across the plot area, left to right and bottom to top. */
  xView: [number, number]
  yView: [number, number]
  xTicks: number[]
  yTicks: number[]
  /** The legend box, on the stacked-bar panel. */
  legend?: PixelRect
}

export interface DatasetStatsFigure {
  image: Canvas
  /** Prompt, output and total histograms, then the stacked bars (Python's order, row by row). */
  panels: PlotPanel[]
  /** The histograms of the first three panels. */
  histograms: Histogram[]
}

/** Python's colours (matplotlib named colours) at alpha 0.7 over white, made opaque. */
export const PLOT_COLORS = {
  prompt: overWhite([70, 130, 180], 0.7), // steelblue
  output: overWhite([255, 127, 80], 0.7), // coral
  total: overWhite([60, 179, 113], 0.7), // mediumseagreen
} as const

const WIDTH = 1400
const HEIGHT = 1000
const BLACK: Rgb = [0, 0, 0]
const WHITE: Rgb = [255, 255, 255]
// matplotlib's grid colour #b0b0b0 at alpha 0.3 over white.
const GRID = overWhite([176, 176, 176], 0.3)
const LEGEND_EDGE: Rgb = [204, 204, 204]
const BINS = 30
const TICK_LEN = 6
const SMALL = 2
const TITLE = 3

/**
 * numpy's `histogram(values, bins)` over `[min, max]` (widened by 0.5 on each side when all values
 * are equal): equal bins, each closed on the left, the last also on the right.
 */
export function histogram(values: readonly number[], bins = BINS): Histogram {
  if (values.length === 0) throw new RangeError('a histogram needs at least one value')
  let first = values[0]!
  let last = first
  // A loop, not Math.min(...values): spreading more than about 120,000 arguments overflows the stack.
  for (const value of values) {
    if (value < first) first = value
    if (value > last) last = value
  }
  if (first === last) {
    first -= 0.5
    last += 0.5
  }
  const step = (last - first) / bins
  const edges = Array.from({ length: bins + 1 }, (_, i) => i * step + first)
  edges[bins] = last
  const counts = new Array<number>(bins).fill(0)
  for (const value of values) {
    // numpy computes the index, then moves it by one where rounding put it in a neighbour.
    let index = Math.trunc(((value - first) / (last - first)) * bins)
    if (index === bins) index--
    if (value < edges[index]!) index--
    else if (value >= edges[index + 1]! && index !== bins - 1) index++
    counts[index]!++
  }
  return { edges, counts }
}

/**
 * Tick positions in `[lo, hi]` on a step of 1, 2, 2.5 or 5 times a power of ten, at most
 * `maxTicks + 1` of them (the way matplotlib's MaxNLocator picks them).
 */
export function niceTicks(lo: number, hi: number, maxTicks: number): number[] {
  if (!(hi > lo)) return [lo]
  const raw = (hi - lo) / Math.max(1, maxTicks)
  const magnitude = 10 ** Math.floor(Math.log10(raw))
  const step = ([1, 2, 2.5, 5, 10].find((s) => s * magnitude >= raw * (1 - 1e-9)) ?? 10) * magnitude
  const ticks: number[] = []
  const tolerance = step * 1e-9
  // toPrecision drops the float noise of k × step (4.6000000000000005); + 0 turns -0 into 0.
  for (let k = Math.ceil((lo - tolerance) / step); k * step <= hi + tolerance; k++)
    ticks.push(Number((k * step).toPrecision(12)) + 0)
  return ticks
}

/** Tick labels with one number of decimals for the whole axis, enough for its step. */
export function formatTicks(ticks: readonly number[]): string[] {
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 1
  let decimals = 0
  while (
    decimals < 6 &&
    Math.abs(Math.round(step * 10 ** decimals) - step * 10 ** decimals) > 1e-6 * 10 ** decimals
  )
    decimals++
  return ticks.map((t) => {
    const text = t.toFixed(decimals)
    return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text
  })
}

/** Where the data point (x, y) of `panel` lands in the image, in device pixels. */
export function panelPixel(panel: PlotPanel, x: number, y: number): [number, number] {
  const { plot, xView, yView } = panel
  return [
    plot.left + ((x - xView[0]) / (xView[1] - xView[0])) * plot.width,
    plot.top + plot.height - ((y - yView[0]) / (yView[1] - yView[0])) * plot.height,
  ]
}

/**
 * The lengths to plot from a result (generation or pooling) that still holds its per-request
 * arrays: `input_lens` and `output_lens`, or undefined when either is missing or empty, where
 * Python warns instead of plotting (a pooling result has no `output_lens`).
 */
export function datasetStatsInput(result: {
  input_lens?: readonly number[] | undefined
  output_lens?: readonly number[] | undefined
}): DatasetStatsInput | undefined {
  const { input_lens: inputLens, output_lens: outputLens } = result
  if (!Array.isArray(inputLens) || !Array.isArray(outputLens)) return undefined
  if (inputLens.length === 0 || outputLens.length === 0) return undefined
  return { inputLens, outputLens }
}

/**
 * Draws the four panels of Python's dataset-statistics figure from the per-request lengths
 * (paired in order, as Python zips them). Throws a `RangeError` when there is no request.
 */
export function datasetStatsFigure(input: DatasetStatsInput): DatasetStatsFigure {
  const n = Math.min(input.inputLens.length, input.outputLens.length)
  if (n === 0) throw new RangeError('the dataset statistics plot needs at least one request')
  const prompt = input.inputLens.slice(0, n)
  const output = input.outputLens.slice(0, n)
  const total = prompt.map((p, i) => p + output[i]!)
  const image = new Canvas(WIDTH, HEIGHT, WHITE)
  const histograms = [histogram(prompt), histogram(output), histogram(total)]
  const specs = [
    { title: 'Prompt Tokens Distribution', xLabel: 'Prompt Tokens', color: PLOT_COLORS.prompt },
    { title: 'Output Tokens Distribution', xLabel: 'Output Tokens', color: PLOT_COLORS.output },
    {
      title: 'Total Tokens Distribution',
      xLabel: 'Total Tokens (Prompt + Output)',
      color: PLOT_COLORS.total,
    },
  ]
  const panels = specs.map((spec, i) =>
    drawHistogramPanel(image, panelFrame(i), spec.title, spec.xLabel, spec.color, histograms[i]!),
  )
  panels.push(drawStackedPanel(image, panelFrame(3), prompt, output))
  return { image, panels, histograms }
}

/** The figure as a PNG file. */
export function datasetStatsPng(input: DatasetStatsInput): Buffer {
  return encodePng(datasetStatsFigure(input).image, {
    Title: 'servebench dataset statistics',
    Software: 'servebench',
  })
}

// The plot area of panel `index` (0 top left, 1 top right, 2 bottom left, 3 bottom right).
function panelFrame(index: number): PixelRect {
  const left = (index % 2) * (WIDTH / 2)
  const top = Math.floor(index / 2) * (HEIGHT / 2)
  return { left: left + 120, top: top + 60, width: WIDTH / 2 - 150, height: HEIGHT / 2 - 150 }
}

function drawHistogramPanel(
  image: Canvas,
  plot: PixelRect,
  title: string,
  xLabel: string,
  color: Rgb,
  hist: Histogram,
): PlotPanel {
  const lo = hist.edges[0]!
  const hi = hist.edges[hist.edges.length - 1]!
  const margin = (hi - lo) * 0.05
  const panel = axes(plot, title, xLabel, 'Frequency', [lo - margin, hi + margin], [0, yTop(hist.counts)])
  drawGrid(image, panel)
  hist.counts.forEach((count, i) => {
    if (count === 0) return
    const [x0, y0] = panelPixel(panel, hist.edges[i]!, count)
    const [x1, base] = panelPixel(panel, hist.edges[i + 1]!, 0)
    const left = Math.round(x0)
    const width = Math.max(1, Math.round(x1) - left)
    const top = Math.round(y0)
    image.fillRect(left, top, width, Math.round(base) - top, color)
    if (width >= 3) image.strokeRect(left, top, width + 1, Math.round(base) - top + 1, BLACK)
  })
  drawFrame(image, panel)
  return panel
}

function drawStackedPanel(
  image: Canvas,
  plot: PixelRect,
  prompt: readonly number[],
  output: readonly number[],
): PlotPanel {
  const n = prompt.length
  const lo = -0.4
  const hi = n - 1 + 0.4
  const margin = (hi - lo) * 0.05
  const totals = prompt.map((p, i) => p + output[i]!)
  const panel = axes(
    plot,
    'Tokens per Request (Stacked)',
    'Request ID',
    'Tokens',
    [lo - margin, hi + margin],
    [0, yTop(totals)],
  )
  drawGrid(image, panel, 'y')
  for (let i = 0; i < n; i++) {
    const [x0] = panelPixel(panel, i - 0.4, 0)
    const [x1] = panelPixel(panel, i + 0.4, 0)
    let left = Math.round(x0)
    let width = Math.round(x1) - left
    if (width < 1) {
      left = Math.round((x0 + x1) / 2)
      width = 1
    }
    const [, base] = panelPixel(panel, 0, 0)
    const [, mid] = panelPixel(panel, 0, prompt[i]!)
    const [, top] = panelPixel(panel, 0, totals[i]!)
    image.fillRect(left, Math.round(mid), width, Math.round(base) - Math.round(mid), PLOT_COLORS.prompt)
    image.fillRect(left, Math.round(top), width, Math.round(mid) - Math.round(top), PLOT_COLORS.output)
  }
  panel.legend = drawLegend(image, panel, totals)
  drawFrame(image, panel)
  return panel
}

function axes(
  plot: PixelRect,
  title: string,
  xLabel: string,
  yLabel: string,
  xView: [number, number],
  yView: [number, number],
): PlotPanel {
  return {
    title,
    xLabel,
    yLabel,
    plot,
    xView,
    yView,
    xTicks: niceTicks(xView[0], xView[1], Math.floor(plot.width / 90)),
    yTicks: niceTicks(yView[0], yView[1], Math.floor(plot.height / 50)),
  }
}

// matplotlib's sticky zero and 5 % top margin; an all-zero axis gets a unit range.
function yTop(values: readonly number[]): number {
  const max = values.reduce((a, b) => Math.max(a, b), 0)
  return max > 0 ? max * 1.05 : 1
}

function drawGrid(image: Canvas, panel: PlotPanel, which: 'both' | 'y' = 'both'): void {
  const { plot } = panel
  for (const y of panel.yTicks) {
    const py = Math.round(panelPixel(panel, 0, y)[1])
    if (py > plot.top && py < plot.top + plot.height) image.fillRect(plot.left, py, plot.width, 1, GRID)
  }
  if (which === 'y') return
  for (const x of panel.xTicks) {
    const px = Math.round(panelPixel(panel, x, 0)[0])
    if (px > plot.left && px < plot.left + plot.width) image.fillRect(px, plot.top, 1, plot.height, GRID)
  }
}

// The frame, the outward ticks with their labels, the axis labels and the title.
function drawFrame(image: Canvas, panel: PlotPanel): void {
  const { plot } = panel
  const bottom = plot.top + plot.height
  image.strokeRect(plot.left - 1, plot.top - 1, plot.width + 2, plot.height + 2, BLACK)
  const xLabels = formatTicks(panel.xTicks)
  panel.xTicks.forEach((x, i) => {
    const px = Math.round(panelPixel(panel, x, 0)[0])
    image.fillRect(px, bottom + 1, 1, TICK_LEN, BLACK)
    image.text(px, bottom + TICK_LEN + 6, xLabels[i]!, { scale: SMALL, color: BLACK, align: 'middle' })
  })
  const yLabels = formatTicks(panel.yTicks)
  let widest = 0
  panel.yTicks.forEach((y, i) => {
    const py = Math.round(panelPixel(panel, 0, y)[1])
    image.fillRect(plot.left - 1 - TICK_LEN, py, TICK_LEN, 1, BLACK)
    const width = image.text(plot.left - TICK_LEN - 6, py - 7, yLabels[i]!, {
      scale: SMALL,
      color: BLACK,
      align: 'end',
    })
    widest = Math.max(widest, width)
  })
  image.text(plot.left + plot.width / 2, bottom + TICK_LEN + 36, panel.xLabel, {
    scale: SMALL,
    color: BLACK,
    align: 'middle',
  })
  image.verticalText(plot.left - TICK_LEN - 6 - widest - 30, plot.top + plot.height / 2, panel.yLabel, {
    scale: SMALL,
    color: BLACK,
    align: 'middle',
  })
  image.text(plot.left + plot.width / 2, plot.top - 40, panel.title, {
    scale: TITLE,
    color: BLACK,
    align: 'middle',
  })
}

// Python's `ax4.legend()` picks the least crowded place; the two upper corners are weighed here.
function drawLegend(image: Canvas, panel: PlotPanel, totals: readonly number[]): PixelRect {
  const entries: Array<[string, Rgb]> = [
    ['Prompt Tokens', PLOT_COLORS.prompt],
    ['Output Tokens', PLOT_COLORS.output],
  ]
  const { plot } = panel
  const width = 230
  const height = 64
  const top = plot.top + 10
  const corners = [plot.left + plot.width - 10 - width, plot.left + 10]
  const covered = (left: number): number =>
    totals.filter((t, i) => {
      const [px, py] = panelPixel(panel, i, t)
      return px >= left && px <= left + width && py <= top + height
    }).length
  const left = covered(corners[0]!) <= covered(corners[1]!) ? corners[0]! : corners[1]!
  image.fillRect(left, top, width, height, WHITE, 0.8)
  image.strokeRect(left, top, width, height, LEGEND_EDGE)
  entries.forEach(([label, color], i) => {
    const y = top + 12 + i * 26
    image.fillRect(left + 12, y, 40, 14, color)
    image.text(left + 64, y, label, { scale: SMALL, color: BLACK })
  })
  return { left, top, width, height }
}

function overWhite(color: Rgb, alpha: number): Rgb {
  const mix = (c: number): number => Math.round(c * alpha + 255 * (1 - alpha))
  return [mix(color[0]), mix(color[1]), mix(color[2])]
}
