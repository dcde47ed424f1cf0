/**
 * The Pareto frontier of a sweep in the HTML report: every point by output tokens/s per user (x)
 * and per GPU (y), the frontier joined over them, as `servebench sweep plot_pareto` draws it in
 * its PNG (`result/pareto.ts` places the points). Pure.
 */
import { paretoFrontier, paretoPoints } from '../result/pareto.ts'
import type { ChartSpec } from './report-charts.ts'

/**
 * The chart of `runs`, or undefined when fewer than two runs have an output throughput and a
 * user count (`max_concurrency`, `request_rate` or `max_concurrent_requests`).
 */
export function paretoChart(id: string, runs: ReadonlyArray<Record<string, unknown>>): ChartSpec | undefined {
  if (!runs.every((r) => typeof r.output_throughput === 'number')) return undefined
  const { points } = paretoPoints(runs)
  const shown = points.filter((p) => Number.isFinite(p.tokensPerUser) && Number.isFinite(p.tokensPerGpu))
  if (shown.length < 2) return undefined
  const frontier = new Set(paretoFrontier(shown))
  // One x per point, in order (uPlot's x must ascend); equal x values keep one slot each.
  const sorted = [...shown].sort((a, b) => a.tokensPerUser - b.tokensPerUser)
  return {
    id,
    title: 'Pareto frontier: tokens/s per user against tokens/s per GPU',
    kind: 'points',
    xLabel: 'Tokens/s/user',
    yLabel: 'Tokens/s/GPU',
    x: sorted.map((p) => p.tokensPerUser),
    series: [
      { label: 'All runs', values: sorted.map((p) => p.tokensPerGpu), color: '#7f7f7f' },
      {
        label: 'Pareto frontier',
        values: sorted.map((p) => (frontier.has(p) ? p.tokensPerGpu : null)),
        color: '#ff7f0e',
        kind: 'line',
        markers: true,
      },
    ],
    yFromZero: true,
  }
}
