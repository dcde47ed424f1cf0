import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { reportSections } from './report-sections.ts'
import { kneeIndex, sweepFileResults, sweepGroups, sweptParameter } from './sweep-charts.ts'

// A result of one sweep point: throughput levels off past concurrency 4 while latency climbs.
const point = (concurrency: number, throughput: number, p99: number): Record<string, unknown> => ({
  completed: 32,
  failed: 0,
  request_rate: Number.POSITIVE_INFINITY,
  max_concurrency: concurrency,
  request_throughput: throughput / 12,
  output_throughput: throughput,
  mean_ttft_ms: p99 / 2,
  p99_ttft_ms: p99,
})

describe('a sweep in the report', () => {
  it('reads a combined sweep file as its points, named by the value swept', () => {
    const file = {
      mode: 'sweep',
      sweep_parameter: 'max_concurrency',
      sweep_values: [1, 16, 4],
      points: [point(1, 95, 35), point(16, 380, 400), point(4, 350, 24)],
    }
    const results = sweepFileResults('q-sweep', file)!
    expect(results.map((r) => r.name)).toEqual([
      'q-sweep › concurrency=1',
      'q-sweep › concurrency=16',
      'q-sweep › concurrency=4',
    ])
    expect(results[1]!.sweep).toEqual({ name: 'q-sweep', parameter: 'max_concurrency', value: 16 })
    expect(sweepFileResults('plain', point(1, 95, 35))).toBeUndefined()
    // A rate sweep written before `Infinity` was: its value "inf" is still the last point.
    const rates = sweepFileResults('r', {
      mode: 'sweep',
      sweep_parameter: 'request_rate',
      sweep_values: ['inf', 2],
      points: [point(4, 300, 90), point(4, 200, 30)],
    })!
    expect(rates.map((r) => r.name)).toEqual(['r › rate=inf', 'r › rate=2'])

    // Drawn in the order of the value swept (1, 4, 16), not the order run or the throughput order.
    const sections = reportSections({ results })
    expect(sections.map((s) => s.title)).toEqual([
      'Sweep: q-sweep',
      'q-sweep › concurrency=1',
      'q-sweep › concurrency=4',
      'q-sweep › concurrency=16',
    ])
    const chart = sections[0]!.charts[0]!
    expect([chart.xLabel, chart.xTicks, chart.yLabel, chart.y2Label]).toEqual([
      'max concurrency',
      ['1', '4', '16'],
      'ms',
      'output tok/s',
    ])
    expect(chart.series.map((s) => [s.label, s.values])).toEqual([
      ['output tok/s', [95, 350, 380]],
      ['mean_ttft_ms', [17.5, 12, 200]],
      ['p99_ttft_ms', [35, 24, 400]],
    ])
    // The knee is concurrency 4: its category (x = 1), labelled by the value, not the file name.
    expect(chart.marks).toEqual([{ axis: 'x', value: 1, label: 'knee: concurrency=4', color: '#555' }])
    expect(sections[0]!.notes).toEqual([
      'The knee (Kneedle on p99_ttft_ms against output throughput) is at concurrency=4.',
    ])
    expect(sections[0]!.tables[0]!.rows.map((r) => r[0])).toEqual(['1', '4', '16'])
    // Each point keeps its own section, drawn from its percentiles (the file has no arrays).
    expect(sections[2]!.charts.map((c) => c.id)).toEqual(['b1-ttft-percentiles'])
    expect(sections[2]!.tables[0]!.rows).toContainEqual(['output_throughput', '350'])
    // Two more results beside the sweep are compared with each other.
    const more = [point(2, 200, 30), point(2, 190, 32)].map((result, i) => ({ name: `x${i}`, result }))
    expect(reportSections({ results: [...results, ...more] }).map((s) => s.id)).toEqual([
      'comparison',
      'sweep',
      'b0',
      'b1',
      'b2',
      'b3',
      'b4',
    ])
  })

  it('finds the parameter that result files differ in, and orders them by it', () => {
    const [a, b, c] = [point(16, 380, 400), point(1, 95, 35), point(4, 350, 24)]
    expect(sweptParameter([a, b, c])).toBe('max_concurrency')
    const rate = (r: number): Record<string, unknown> => ({ ...a, request_rate: r, max_concurrency: null })
    expect(sweptParameter([rate(8), rate(2), rate(Number.POSITIVE_INFINITY)])).toBe('request_rate')
    // Both or neither: no sweep, so no sweep section and the files keep their order.
    expect(sweptParameter([a, { ...b, request_rate: 2 }, c])).toBeUndefined()
    expect(sweptParameter([a, a, a])).toBeUndefined()
    const named = [a, b, c].map((result, i) => ({ name: `f${i}`, result }))
    const { groups, rest } = sweepGroups(named)
    expect(rest).toEqual([])
    expect(groups.map((g) => [g.name, g.parameter, g.results.map((r) => r.name)])).toEqual([
      ['sweep', 'max_concurrency', ['f1', 'f2', 'f0']],
    ])
    const rates = sweepGroups(
      [rate(Number.POSITIVE_INFINITY), rate(8), rate(2)].map((result, i) => ({ name: `r${i}`, result })),
    )
    expect(rates.groups[0]!.results.map((r) => r.name)).toEqual(['r2', 'r1', 'r0'])
    expect(
      reportSections({ results: [a, a, a].map((result, i) => ({ name: `s${i}`, result })) }).map((s) => s.id),
    ).toEqual(['b0', 'b1', 'b2'])
  })

  it('finds the knee of a latency curve that bends upward', () => {
    const curve = [
      { x: 100, y: 20 },
      { x: 200, y: 22 },
      { x: 300, y: 25 },
      { x: 350, y: 60 },
      { x: 360, y: 200 },
    ]
    expect(kneeIndex(curve)).toBe(2)
    expect(kneeIndex(curve.slice(0, 2))).toBeUndefined()
    // Any convex increasing curve has its knee strictly inside.
    fc.assert(
      fc.property(
        fc.integer({ min: 4, max: 20 }),
        fc.double({ min: 1.5, max: 4, noNaN: true }),
        (n, power) => {
          const points = Array.from({ length: n }, (_, i) => ({ x: i, y: (i / (n - 1)) ** power }))
          const k = kneeIndex(points)!
          return k > 0 && k < n - 1
        },
      ),
    )
  })
})
