import { describe, expect, it } from 'vitest'
import { latencyPercentiles, percentileCharts, throughputBars } from './percentile-charts.ts'
import { reportSections } from './report-sections.ts'

// Python's default --save-result: no per-request arrays, the statistics of --metric-percentiles.
const plain = (ttftMs: number, throughput: number): Record<string, unknown> => ({
  completed: 200,
  failed: 0,
  request_throughput: throughput,
  request_goodput: null,
  output_throughput: throughput * 64,
  total_token_throughput: throughput * 320,
  mean_ttft_ms: ttftMs * 1.1,
  median_ttft_ms: ttftMs,
  std_ttft_ms: 3,
  'p99.9_ttft_ms': ttftMs * 3,
  p99_ttft_ms: ttftMs * 2,
  p90_ttft_ms: ttftMs * 1.5,
  mean_tpot_ms: 10,
  median_tpot_ms: 9.5,
  p99_tpot_ms: 14,
})

describe('a result without per-request arrays', () => {
  it('reads its percentiles of each metric, the median as the 50th', () => {
    expect(latencyPercentiles(plain(40, 16), 'ttft')).toEqual([
      { p: 50, ms: 40 },
      { p: 90, ms: 60 },
      { p: 99, ms: 80 },
      { p: 99.9, ms: 120 },
    ])
    expect(latencyPercentiles({ p50_itl_ms: 9, median_itl_ms: 8 }, 'itl')).toEqual([{ p: 50, ms: 9 }])
    expect(latencyPercentiles(plain(40, 16), 'e2el')).toEqual([])
  })

  it('draws one percentile curve per result and the throughputs as bars side by side', () => {
    const both = [
      { label: 'main', result: plain(40, 16) },
      { label: 'pr', result: { ...plain(50, 15), 'p99.9_ttft_ms': undefined } },
    ]
    const [ttft, tpot] = percentileCharts('cmp', both)
    expect([ttft!.id, ttft!.xTicks, ttft!.xLabel, ttft!.yLabel]).toEqual([
      'cmp-ttft-percentiles',
      ['p50', 'p90', 'p99', 'p99.9'],
      'percentile',
      'ms',
    ])
    expect(ttft!.series.map((s) => [s.label, s.values])).toEqual([
      ['main', [40, 60, 80, 120]],
      ['pr', [50, 75, 100, null]],
    ])
    expect(tpot!.xTicks).toEqual(['p50', 'p99'])
    const [requests, tokens] = throughputBars('cmp', both)
    // No goodput in either file: the request chart has the one category it can draw.
    expect([requests!.xTicks, requests!.series.map((s) => s.values)]).toEqual([['requests'], [[16], [15]]])
    expect([tokens!.yLabel, tokens!.xTicks, tokens!.series.map((s) => s.values)]).toEqual([
      'tok/s',
      ['output', 'total'],
      [
        [1024, 5120],
        [960, 4800],
      ],
    ])
    expect(tokens!.series.map((s) => s.barGroup)).toEqual([
      { index: 0, count: 2 },
      { index: 1, count: 2 },
    ])
  })

  it('gives `report A.json B.json` of two plain results charts to compare', () => {
    const sections = reportSections({
      results: [
        { name: 'main', result: plain(40, 16) },
        { name: 'pr', result: plain(50, 15) },
      ],
    })
    expect(sections.map((s) => [s.id, s.charts.map((c) => c.id)])).toEqual([
      [
        'comparison',
        ['cmp-ttft-percentiles', 'cmp-tpot-percentiles', 'cmp-request-rates', 'cmp-token-rates'],
      ],
      ['b0', ['b0-ttft-percentiles', 'b0-tpot-percentiles']],
      ['b1', ['b1-ttft-percentiles', 'b1-tpot-percentiles']],
    ])
    expect(sections[0]!.notes).toEqual([
      'Per-request data is missing from one of the results: the latencies are compared by their percentiles.',
    ])
  })

  it('marks the mean and each SLO bound across a percentile curve, and shows baseline intervals in %', () => {
    const [section] = reportSections({
      results: [
        {
          name: 'chat',
          result: plain(40, 16),
          verdicts: [
            {
              matcher: 'toMeetSLO',
              pass: true,
              verdict: 'pass',
              summary: 'SLO met',
              checks: [
                {
                  metric: 'p99 TTFT',
                  actual: 80,
                  limit: 300,
                  unit: 'ms',
                  pass: true,
                  verdict: 'pass',
                  interval: [70, 95],
                },
                {
                  metric: 'error rate',
                  actual: 0,
                  limit: 0.01,
                  unit: 'fraction',
                  pass: true,
                  verdict: 'pass',
                },
              ],
            },
            {
              matcher: 'toMatchBaseline',
              pass: false,
              verdict: 'fail',
              summary: 'Baseline regression',
              checks: [
                {
                  metric: 'mean TTFT',
                  actual: 44,
                  limit: 34,
                  unit: 'ms',
                  pass: false,
                  verdict: 'fail',
                  interval: [0.282, 0.32],
                },
              ],
            },
          ],
        },
      ],
    })
    const ttft = section!.charts.find((c) => c.id === 'b0-ttft-percentiles')!
    expect(ttft.marks).toEqual([
      { axis: 'y', value: 44, label: 'mean 44 ms', color: '#777' },
      { axis: 'y', value: 300, label: 'p99 TTFT ≤ 300 ms ✓ pass', color: '#2ca02c' },
    ])
    expect(section!.tables.find((t) => t.title === 'Checks')!.rows).toEqual([
      ['toMeetSLO', 'p99 TTFT', '80 ms', '300 ms', '70 ms … 95 ms', '✓ pass'],
      ['toMeetSLO', 'error rate', '0%', '1%', '–', '✓ pass'],
      ['toMatchBaseline', 'mean TTFT', '44 ms', '34 ms', '+28.2% … +32.0%', '✗ fail'],
    ])
  })
})
