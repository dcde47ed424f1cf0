import { describe, expect, it } from 'vitest'
import { parsePrometheusText } from '../../metrics/prometheus.ts'
import { scrapeValues, serverMetricsJson } from '../result/server-metrics-key.ts'
import { buildHtmlReport } from './html-report.ts'
import { cdfChart, histogramChart, requestSeries, throughputCharts } from './report-charts.ts'
import { serverCharts } from './server-charts.ts'

const detailed = {
  start_times: [100, 100.5, 101, 101.5],
  latencies: [1, 1, 1, 0],
  ttfts: [0.02, 0.04, 0.06, 0],
  output_lens: [10, 10, 10, 0],
  itls: [[0.01, 0.01], [0.01], [0.02], []],
  errors: ['', '', '', 'HTTP 500'],
}

describe('the chart data', () => {
  it('puts the successful requests on a time axis that starts at the first one', () => {
    const r = requestSeries(detailed)!
    expect(r.originS).toBe(100)
    expect(r.startS).toEqual([0, 0.5, 1])
    expect(r.endS).toEqual([1, 1.5, 2])
    expect(r.ttftMs).toEqual([20, 40, 60])
    expect(r.itlMs).toEqual([10, 10, 10, 20])
    expect(requestSeries({ completed: 3 })).toBeUndefined()
  })

  it('draws a pooling result (no TTFT) by its end-to-end latency, and thins a huge ITL sample', () => {
    const pooling = { start_times: [0, 1], latencies: [0.2, 0.3], errors: ['', ''] }
    const r = requestSeries(pooling)!
    expect(r.ttftMs).toEqual([])
    const server = {
      source: 's',
      interval_s: 1,
      t_s: [0, 1],
      series: { 'vllm:num_requests_waiting': [0, 2] },
    }
    expect(serverCharts('p', server, r)[0]!.series.map((s) => s.label)).toEqual(['waiting (server)'])
    const gaps = Array.from({ length: 3 }, () => new Array(100_000).fill(0.01))
    const many = requestSeries({
      start_times: [0, 1, 2],
      latencies: [1, 1, 1],
      ttfts: [0.1, 0.1, 0.1],
      itls: gaps,
    })!
    expect(many.itlMs).toHaveLength(150_000)
    // 150,000 values spread into Math.min would overflow the stack.
    expect(histogramChart('h', 'ITL', many.itlMs).x).toHaveLength(30)
  })

  it('draws a CDF that ends at 1 and a histogram that counts every request', () => {
    const cdf = cdfChart('c', 'TTFT', [{ label: 'TTFT', values: [3, 1, 2, 2] }])
    expect(cdf.x).toEqual([1, 2, 3])
    expect(cdf.series[0]!.values).toEqual([0.25, 0.75, 1])
    const hist = histogramChart('h', 'TTFT', [1, 2, 2, 3])
    expect((hist.series[0]!.values as number[]).reduce((a, b) => a + b, 0)).toBe(4)
    expect(hist.x).toHaveLength(30)
    expect(hist.yLabel).toBe('requests')
    // An ITL histogram counts token gaps: a request of 20 tokens gives 19 of them.
    const itl = histogramChart('i', 'ITL', [10, 10, 12], [], 'token gaps')
    expect([itl.yLabel, itl.series[0]!.label]).toEqual(['token gaps', 'token gaps'])
    expect(cdfChart('c', 'ITL', [{ label: 'ITL', values: [1] }], [], 'token gaps').yLabel).toBe(
      'fraction of token gaps',
    )
  })

  it('counts completions per bin and requests in flight, with the steady-state window as a band', () => {
    const [throughput, inFlight] = throughputCharts('b', requestSeries(detailed)!, { startS: 0.5, endS: 1.5 })
    expect(throughput!.band).toEqual({ from: 0.5, to: 1.5, label: 'steady state' })
    // Bins of 0.1 s: ends at 1, 1.5 and 2 s (the last bin's end) give 10 req/s in three bins, at their centres.
    const [tokens, requests] = throughput!.series
    expect(requests!.values.filter((v) => v! > 0).map((v) => Math.round(v!))).toEqual([10, 10, 10])
    expect(throughput!.x.filter((_, i) => requests!.values[i]! > 0).map((x) => x.toFixed(2))).toEqual([
      '1.05',
      '1.55',
      '1.95',
    ])
    // Tokens are bars on the right axis, requests a line with points over them: with 10 tokens a
    // request the two have one shape, and two lines would be drawn one on the other.
    expect([tokens!.label, tokens!.kind, tokens!.scale]).toEqual(['output tok/s', 'bars', 'y2'])
    expect([requests!.label, requests!.kind ?? throughput!.kind, requests!.markers]).toEqual([
      'completed req/s',
      'line',
      true,
    ])
    expect([throughput!.yLabel, throughput!.y2Label]).toEqual(['completed req/s', 'output tok/s'])
    expect(Math.max(...(inFlight!.series[0]!.values as number[]))).toBe(2)
  })
})

describe('server metrics', () => {
  const page = (
    running: number,
    waiting: number,
    hits: number,
    queries: number,
  ): string => `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m",engine="0"} ${running}
vllm:num_requests_running{model_name="m",engine="1"} 1
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="m"} ${waiting}
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{model_name="m"} ${hits}
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{model_name="m"} ${queries}
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{le="1.0"} 3
vllm:e2e_request_latency_seconds_sum 1.5
vllm:e2e_request_latency_seconds_count 3
`

  it('keeps gauges and counters summed over label sets, vLLM names first, histograms left out', () => {
    const scrapes = [
      { tS: 10, values: scrapeValues(parsePrometheusText(page(0, 0, 0, 0))) },
      { tS: 11, values: { ...scrapeValues(parsePrometheusText(page(3, 5, 30, 40))), zz_other: 7 } },
      { tS: 12, values: scrapeValues(parsePrometheusText(page(4, 1, 70, 80))) },
    ]
    const json = serverMetricsJson(scrapes, { source: 'http://x/metrics', intervalS: 1 })!
    expect(json).toEqual({
      source: 'http://x/metrics',
      interval_s: 1,
      t_s: [10, 11, 12],
      series: {
        'vllm:num_requests_running': [1, 4, 5],
        'vllm:num_requests_waiting': [0, 5, 1],
        'vllm:prefix_cache_queries_total': [0, 40, 80],
        'vllm:prefix_cache_hits_total': [0, 30, 70],
        zz_other: [0, 7, 7],
      },
    })
    expect(serverMetricsJson([], { source: 'x', intervalS: 1 })).toBeUndefined()
    const [queue, cache] = serverCharts(
      's',
      json,
      requestSeries({ ...detailed, start_times: [9.5, 10, 10.5, 11] }),
    )
    expect(queue!.series.map((s) => s.label)).toEqual([
      'TTFT (client)',
      'running (server)',
      'waiting (server)',
    ])
    // The hit rate of each interval: 30/40, then 40/40.
    expect(cache!.series[0]!.values).toEqual([null, 75, 100])
  })
})

describe('the HTML report page', () => {
  it('inlines the chart library and data, forbids network requests, and escapes text', () => {
    const html = buildHtmlReport(
      { results: [{ name: '<run> & co', result: { ...detailed, completed: 3, mean_ttft_ms: 40 } }] },
      { title: 'T </script>', library: { js: 'window.uPlot = function () {}', css: '.u{}' } },
    )
    expect(html).toContain(
      `content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"`,
    )
    expect(html).toContain('<title>T &lt;/script&gt;</title>')
    expect(html).toContain('<h2>&lt;run&gt; &amp; co</h2>')
    expect(html).toContain('<script>window.uPlot = function () {}</script>')
    const data = /<script type="application\/json" id="servebench-charts">(.*?)<\/script>/s.exec(html)![1]!
    expect(data).not.toMatch(/[<>&]/)
    const ids = (JSON.parse(data) as Array<{ id: string }>).map((c) => c.id)
    expect(ids).toEqual([
      'b0-ttft-cdf',
      'b0-ttft-hist',
      'b0-itl-cdf',
      'b0-itl-hist',
      'b0-e2el-cdf',
      'b0-e2el-hist',
      'b0-throughput',
      'b0-inflight',
    ])
    for (const id of ids) expect(html).toContain(`<div class="chart" id="${id}"`)
  })
})
