import { describe, expect, it } from 'vitest'
import { decodePng } from '../../../test/png-decode.ts'
import { glyph, hasGlyph, textWidth } from './bitmap-font.ts'
import {
  datasetStatsFigure,
  datasetStatsPng,
  formatTicks,
  histogram,
  niceTicks,
  PLOT_COLORS,
  type PlotPanel,
  panelPixel,
} from './dataset-stats-plot.ts'

const INPUT = [10, 12, 12, 15, 20, 20, 20, 31, 40, 40, 12, 18]
const OUTPUT = [5, 0, 8, 8, 16, 3, 30, 8, 2, 9, 1, 20]

describe('histogram (numpy.histogram with bins=30)', () => {
  it('spans [min, max] in equal bins, the last one closed on the right', () => {
    expect(histogram([1, 2, 2, 3, 3, 3, 10], 3)).toEqual({ edges: [1, 4, 7, 10], counts: [6, 0, 1] })
    const edges = histogram(Array.from({ length: 31 }, (_, i) => i)).counts
    expect(edges).toEqual([...new Array(29).fill(1), 2])
  })

  it('widens a single value by 0.5 on each side, as numpy does', () => {
    const { edges, counts } = histogram([5, 5])
    expect(edges[0]).toBe(4.5)
    expect(edges[30]).toBe(5.5)
    expect(counts[15]).toBe(2)
    expect(counts.reduce((a, b) => a + b)).toBe(2)
  })

  it('puts every value in the bin whose edges hold it, even where rounding is close', () => {
    const values = Array.from({ length: 301 }, (_, i) => i / 100)
    const { edges, counts } = histogram(values)
    expect(counts.reduce((a, b) => a + b)).toBe(301)
    let k = 0
    for (const [i, count] of counts.entries()) {
      for (const v of values.slice(k, k + count)) {
        expect(v).toBeGreaterThanOrEqual(edges[i]!)
        if (i < 29) expect(v).toBeLessThan(edges[i + 1]!)
      }
      k += count
    }
  })

  it('takes a run of any size (no spread of the values into Math.min / Math.max)', () => {
    const values = Array.from({ length: 300_000 }, (_, i) => i % 1_000)
    const { edges, counts } = histogram(values)
    expect([edges[0], edges[30]]).toEqual([0, 999])
    expect(counts.reduce((a, b) => a + b)).toBe(300_000)
    const figure = datasetStatsFigure({ inputLens: values, outputLens: values })
    expect(figure.panels[3]!.yView).toEqual([0, 1998 * 1.05])
  })

  it('refuses no values', () => {
    expect(() => histogram([])).toThrow(new RangeError('a histogram needs at least one value'))
  })
})

describe('ticks', () => {
  it('steps by 1, 2, 2.5 or 5 times a power of ten, inside the range', () => {
    expect(niceTicks(0, 105, 6)).toEqual([0, 20, 40, 60, 80, 100])
    expect(niceTicks(-0.5, 10.5, 7)).toEqual([0, 2, 4, 6, 8, 10])
    expect(niceTicks(0, 14.7, 7)).toEqual([0, 2.5, 5, 7.5, 10, 12.5])
    expect(niceTicks(4.45, 5.55, 6)).toEqual([4.6, 4.8, 5, 5.2, 5.4])
    expect(formatTicks([0, 2.5, 5])).toEqual(['0.0', '2.5', '5.0'])
    expect(formatTicks([0, 20, 40])).toEqual(['0', '20', '40'])
    expect(formatTicks(niceTicks(-0.7, 0.7, 7))).toEqual(['-0.6', '-0.4', '-0.2', '0.0', '0.2', '0.4', '0.6'])
  })
})

describe('the bitmap font', () => {
  it('has digits, letters and the symbols of the figure; others draw as ?', () => {
    for (const c of '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz ()+-.,:/%')
      expect(hasGlyph(c)).toBe(true)
    expect(hasGlyph('é')).toBe(false)
    expect(glyph('é')).toEqual(glyph('?'))
    // Descenders use the rows under the baseline; capitals do not.
    expect(glyph('g')[8]!.some(Boolean)).toBe(true)
    expect(glyph('T')[7]!.some(Boolean)).toBe(false)
    expect(textWidth('ab', 2)).toBe(22)
  })
})

describe('datasetStatsPng', () => {
  const png = decodePng(datasetStatsPng({ inputLens: INPUT, outputLens: OUTPUT }))
  const figure = datasetStatsFigure({ inputLens: INPUT, outputLens: OUTPUT })
  const color = (panel: PlotPanel, x: number, y: number) => {
    const [px, py] = panelPixel(panel, x, y)
    return png.at(Math.round(px), Math.round(py))
  }

  it('is a valid 1400×1000 RGB PNG', () => {
    expect(png.chunks.every((c) => c.crcOk)).toBe(true)
    expect([png.width, png.height]).toEqual([1400, 1000])
    expect(png.text).toEqual({ Title: 'servebench dataset statistics', Software: 'servebench' })
    expect(Buffer.from(png.pixels).equals(figure.image.pixels)).toBe(true)
    expect(figure.panels.map((p) => [p.title, p.xLabel, p.yLabel])).toEqual([
      ['Prompt Tokens Distribution', 'Prompt Tokens', 'Frequency'],
      ['Output Tokens Distribution', 'Output Tokens', 'Frequency'],
      ['Total Tokens Distribution', 'Total Tokens (Prompt + Output)', 'Frequency'],
      ['Tokens per Request (Stacked)', 'Request ID', 'Tokens'],
    ])
  })

  it('draws each histogram bar where the data puts it, and nothing where a bin is empty', () => {
    const totals = INPUT.map((p, i) => p + OUTPUT[i]!)
    const data = [INPUT, OUTPUT, totals]
    const colors = [PLOT_COLORS.prompt, PLOT_COLORS.output, PLOT_COLORS.total]
    for (const k of [0, 1, 2]) {
      const panel = figure.panels[k]!
      const hist = histogram(data[k]!)
      expect(figure.histograms[k]).toEqual(hist)
      // The counts of the prompt lengths, checked by hand on the first panel: 10 to 40 in 1-token bins.
      if (k === 0) expect(hist.counts.filter((c) => c > 0)).toEqual([1, 3, 1, 1, 3, 1, 2])
      const max = Math.max(...hist.counts)
      for (const [i, count] of hist.counts.entries()) {
        const mid = (hist.edges[i]! + hist.edges[i + 1]!) / 2
        if (count > 0) {
          expect(color(panel, mid, count / 2)).toEqual(colors[k])
          expect(color(panel, mid, count * 0.9)).toEqual(colors[k])
        } else {
          expect(color(panel, mid, 0.5)).not.toEqual(colors[k])
        }
        // Above the bar the plot is blank (white, or a grid line).
        if (count < max) expect(color(panel, mid, count + (max - count) / 2)).not.toEqual(colors[k])
      }
    }
  })

  it('stacks each request as prompt tokens under output tokens', () => {
    const panel = figure.panels[3]!
    const legend = panel.legend!
    for (const [i, p] of INPUT.entries()) {
      const [px] = panelPixel(panel, i, 0)
      if (px >= legend.left - 2 && px <= legend.left + legend.width + 2) continue
      expect(color(panel, i, p / 2)).toEqual(PLOT_COLORS.prompt)
      if (OUTPUT[i]! >= 3) expect(color(panel, i, p + OUTPUT[i]! / 2)).toEqual(PLOT_COLORS.output)
      expect(color(panel, i + 0.5, p / 2)).not.toEqual(PLOT_COLORS.prompt)
    }
    expect(figure.panels[3]!.xView[0]).toBeLessThan(-0.4)
    expect(figure.panels[3]!.yView).toEqual([0, 50 * 1.05])
  })

  it('needs at least one request', () => {
    expect(() => datasetStatsPng({ inputLens: [], outputLens: [] })).toThrow(
      new RangeError('the dataset statistics plot needs at least one request'),
    )
  })
})
