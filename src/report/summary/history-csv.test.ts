import { describe, expect, it } from 'vitest'
import { requestsCsv, summaryCsv } from './csv.ts'
import { formatHistoryLines, historyEntries, historyTrends, parseHistory, TREND_METRICS } from './history.ts'
import type { RunSummary, SummaryMetrics } from './run-summary.ts'

const metrics = (p99TtftMs: number): SummaryMetrics => ({
  completed: 32,
  failed: 0,
  duration_s: 2,
  request_throughput: 16,
  output_throughput: 1024,
  mean_ttft_ms: p99TtftMs / 2,
  p99_ttft_ms: p99TtftMs,
  mean_tpot_ms: 10,
  mean_itl_ms: 10,
})

const run = (date: string, p99TtftMs: number): RunSummary => ({
  date,
  reason: 'passed',
  benchmarks: [
    {
      file: 'chat.bench.ts',
      name: 'short chat',
      state: 'passed',
      verdict: 'pass',
      durationMs: 2100,
      fingerprint: 'f00d',
      resultFile: null,
      metrics: metrics(p99TtftMs),
      verdicts: [
        {
          matcher: 'toMeetSLO',
          pass: true,
          verdict: 'pass',
          summary: 'SLO met',
          checks: [
            { metric: 'p99 TTFT', actual: p99TtftMs, limit: 300, unit: 'ms', pass: true, verdict: 'pass' },
          ],
        },
      ],
      errors: [],
    },
    { ...skipped },
  ],
})

const skipped = {
  file: 'chat.bench.ts',
  name: 'later',
  state: 'skipped' as const,
  verdict: null,
  durationMs: null,
  fingerprint: 'beef',
  resultFile: null,
  metrics: null,
  verdicts: [],
  errors: [],
}

describe('the history file', () => {
  it('holds one line per benchmark that ran, and gives each metric its trend over the runs', () => {
    const text =
      formatHistoryLines(historyEntries(run('2026-12-01T10:00:00.000Z', 40), { commit: 'aaa' })) +
      formatHistoryLines(historyEntries(run('2026-12-01T11:00:00.000Z', 44), { commit: 'bbb' })) +
      '{"torn":\n' +
      formatHistoryLines(historyEntries(run('2026-12-01T12:00:00.000Z', 42), { commit: null }))
    const lines = text.split('\n').filter((l) => l !== '')
    expect(lines).toHaveLength(4)
    expect(JSON.parse(lines[0]!)).toEqual({
      v: 1,
      commit: 'aaa',
      date: '2026-12-01T10:00:00.000Z',
      benchmark: 'chat.bench.ts › short chat',
      fingerprint: 'f00d',
      state: 'passed',
      verdict: 'pass',
      metrics: metrics(40),
      checks: [
        { matcher: 'toMeetSLO', metric: 'p99 TTFT', verdict: 'pass', actual: 40, limit: 300, unit: 'ms' },
      ],
    })
    const { entries, issues } = parseHistory(text)
    expect(entries).toHaveLength(3)
    expect(issues).toEqual([expect.stringMatching(/^line 3: /)])
    const p99 = historyTrends(entries).find((t) => t.metric === 'p99_ttft_ms')
    expect(p99?.points.map((p) => [p.commit, p.value])).toEqual([
      ['aaa', 40],
      ['bbb', 44],
      [null, 42],
    ])
    expect(historyTrends(entries).map((t) => t.metric)).toEqual(TREND_METRICS)
  })
})

describe('CSV exports', () => {
  it('writes one row per request, failures included, in ms', () => {
    const csv = requestsCsv({
      start_times: [0, 0.5],
      queue_times: [0, 0.001],
      input_lens: [32, 32],
      output_lens: [5, 0],
      ttfts: [0.04, 0],
      latencies: [0.08, 0],
      itls: [[0.01, 0.01, 0.01, 0.01], []],
      errors: ['', 'HTTP 500: "bad, very bad"'],
    })
    expect(csv).toBe(
      'index,start_time_s,queue_time_s,input_len,output_len,ttft_ms,tpot_ms,mean_itl_ms,e2el_ms,success,error\r\n' +
        '0,0,0,32,5,40,10,10,80,true,\r\n' +
        '1,0.5,0.001,32,0,,,,,false,"HTTP 500: ""bad, very bad"""\r\n',
    )
    expect(requestsCsv({ completed: 3 })).toBeUndefined()
  })

  it('writes one summary row per result, with empty cells for missing keys', () => {
    const csv = summaryCsv([
      { name: 'a', result: { completed: 3, mean_ttft_ms: 12.5, request_throughput: 'inf' } },
      { name: 'b, c', result: {} },
    ])
    const [head, a, b] = csv.split('\r\n')
    expect(head).toBe(
      'name,date,completed,failed,duration,request_throughput,output_throughput,total_token_throughput,' +
        'mean_ttft_ms,median_ttft_ms,p99_ttft_ms,mean_tpot_ms,median_tpot_ms,p99_tpot_ms,' +
        'mean_itl_ms,median_itl_ms,p99_itl_ms,mean_e2el_ms,median_e2el_ms,p99_e2el_ms,max_concurrent_requests',
    )
    expect(a).toBe('a,,3,,,inf,,,12.5,,,,,,,,,,,,')
    expect(b).toBe(`"b, c"${','.repeat(20)}`)
  })
})
