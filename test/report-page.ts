/**
 * What the browser test reads from a servebench HTML report (JavaScript expressions for
 * `Page.evaluate`, see chromium.ts): whether its charts are drawn, the coloured pixels of each
 * chart and of each series, the labels the page's script drew on a canvas, and each chart's axes.
 */

/** Truthy once the page's script has drawn every chart (`<html data-charts="drawn/total">`). */
export const drawn = 'document.documentElement.dataset.charts !== undefined'

/** `[chart id, pixels of some colour]` for every chart: a chart left blank has none. */
export const colouredPixels = `[...document.querySelectorAll('.chart')].map((el) => {
  const canvas = el.querySelector('canvas')
  if (!canvas) return [el.id, 0]
  const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data
  let n = 0
  for (let i = 0; i < d.length; i += 4)
    if (d[i + 3] > 0 && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 40) n++
  return [el.id, n]
})`

/** A label the page drew on a chart's canvas (a bound, a knee), in CSS pixels of that chart. */
export interface PageLabel {
  id: string
  text: string
  left: number
  right: number
  /** The chart's width. */
  width: number
}

/** Every label the page's script drew itself, as {@link PageLabel}s. */
export const drawnLabels = `Object.entries(window.servebenchCharts).flatMap(([id, u]) =>
  u.servebench.labels.map((l) => ({ id, ...l })))`

/** `[axis labels (x, y, y2), tick labels of a categorical x axis]` of one chart. */
export function axes(id: string): string {
  return `[window.servebenchCharts['${id}'].axes.map((a) => a.label), window.servebenchCharts['${id}'].servebench.xTicks]`
}

/**
 * `[series label, pixels of its colour]` for each series of one chart: what is left of a series
 * once the others are drawn over it. The canvas is transparent, so a bar's translucent fill keeps
 * its series' colour, with less alpha.
 */
export function seriesPixels(id: string): string {
  return `(() => {
  const spec = JSON.parse(document.getElementById('servebench-charts').textContent).find((s) => s.id === '${id}')
  const canvas = document.getElementById('${id}').querySelector('canvas')
  const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data
  return spec.series.map((s) => {
    const rgb = [1, 3, 5].map((i) => parseInt(s.color.slice(i, i + 2), 16))
    let n = 0
    for (let i = 0; i < d.length; i += 4)
      if (d[i + 3] > 100 && rgb.every((c, k) => Math.abs(d[i + k] - c) < 16)) n++
    return [s.label, n]
  })
})()`
}
