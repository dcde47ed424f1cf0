import { describe, expect, it } from 'vitest'
import { renderCompareMarkdown } from '../compare/compare-markdown.ts'
import { renderMarkdownSummary } from './markdown.ts'
import { renderPrComment } from './pr-comment.ts'
import type { RunSummary, SummaryBenchmark, Verdict } from './run-summary.ts'

const bench = (name: string, state: 'passed' | 'failed', verdicts: Verdict[]): SummaryBenchmark => ({
  file: 'chat.bench.ts',
  name,
  state,
  verdict: state === 'passed' ? 'pass' : 'fail',
  durationMs: 1000,
  fingerprint: '0123456789abcdef',
  resultFile: null,
  metrics: null,
  verdicts,
  errors: [],
})

const passing: Verdict = {
  matcher: 'toMatchBaseline',
  pass: true,
  verdict: 'pass',
  summary: 'Baseline matched: 2 metrics within the 10% tolerance',
  checks: [
    {
      metric: 'p99 TTFT',
      actual: 52.4,
      limit: 50,
      unit: 'ms',
      pass: true,
      verdict: 'pass',
      interval: [-0.02, 0.07],
      pValue: 0.3,
    },
    {
      metric: 'output throughput',
      actual: 1210,
      limit: 1200,
      unit: 'tok/s',
      pass: true,
      verdict: 'pass',
      interval: [-0.01, 0.03],
      pValue: 0.6,
    },
  ],
}

const failing: Verdict = {
  matcher: 'toMatchBaseline',
  pass: false,
  verdict: 'fail',
  summary: 'Baseline regression: p99 TTFT +31.0% past the 10% tolerance',
  checks: [
    {
      metric: 'p99 TTFT',
      actual: 65.5,
      limit: 50,
      unit: 'ms',
      pass: false,
      verdict: 'fail',
      interval: [0.21, 0.42],
      pValue: 0.001,
    },
    {
      metric: 'mean TPOT',
      actual: 10.4,
      limit: 10,
      unit: 'ms',
      pass: true,
      verdict: 'inconclusive',
      interval: [-0.05, 0.14],
      pValue: 0.2,
      neededRequests: 614_354.2,
    },
  ],
}

const summaryOf = (...benchmarks: SummaryBenchmark[]): RunSummary => ({
  date: '2026-12-01T18:00:00.000Z',
  reason: benchmarks.some((b) => b.state === 'failed') ? 'failed' : 'passed',
  benchmarks,
})

describe('the pull-request comment', () => {
  it('shows a passing baseline comparison with base, head, change and interval', () => {
    expect(renderPrComment(summaryOf(bench('short chat', 'passed', [passing])))).toBe(
      [
        '<!-- servebench:pr-comment -->',
        '## servebench: ✅ all 2 checks passed',
        '',
        '| Benchmark | Check | Metric | Base | Head | Change | Interval | Verdict |',
        '|---|---|---|---:|---:|---:|---|---|',
        '| chat.bench.ts › short chat | `toMatchBaseline` | p99 TTFT | 50 ms | 52.4 ms | +4.8% | -2.0% … +7.0% | ✅ pass |',
        '| chat.bench.ts › short chat | `toMatchBaseline` | output throughput | 1200 tok/s | 1210 tok/s | +0.8% | -1.0% … +3.0% | ✅ pass |',
        '',
      ].join('\n'),
    )
  })

  it('names the check of each row, and tells how many requests would decide an open one', () => {
    const slo: Verdict = {
      matcher: 'toMeetSLO',
      pass: false,
      verdict: 'fail',
      summary: 'SLO missed: p99 TTFT 412 ms > 300 ms',
      checks: [
        {
          metric: 'p99 TTFT',
          actual: 412,
          limit: 300,
          unit: 'ms',
          pass: false,
          verdict: 'fail',
          interval: [380, 450],
        },
        {
          metric: 'request throughput',
          actual: 9.5,
          limit: 10,
          unit: 'req/s',
          pass: true,
          verdict: 'inconclusive',
        },
        {
          metric: 'error rate',
          actual: 0.015,
          limit: 0,
          unit: 'fraction',
          pass: false,
          verdict: 'fail',
          interval: [0.004, 0.05],
        },
        { metric: 'failed', actual: 3, limit: 0, unit: 'count', pass: false, verdict: 'fail' },
      ],
    }
    const summary = summaryOf(bench('long chat', 'failed', [failing, slo]), bench('embeddings', 'passed', []))
    expect(renderPrComment(summary)).toBe(
      [
        '<!-- servebench:pr-comment -->',
        '## servebench: ❌ 4 of 6 checks failed',
        '',
        '| Benchmark | Check | Metric | Base | Head | Change | Interval | Verdict |',
        '|---|---|---|---:|---:|---:|---|---|',
        '| chat.bench.ts › long chat | `toMatchBaseline` | p99 TTFT | 50 ms | 65.5 ms | +31.0% | +21.0% … +42.0% | ❌ fail |',
        '| chat.bench.ts › long chat | `toMatchBaseline` | mean TPOT | 10 ms | 10.4 ms | +4.0% | -5.0% … +14.0% | ❔ inconclusive (~614,355 requests) |',
        '| chat.bench.ts › long chat | `toMeetSLO` | p99 TTFT | ≤ 300 ms | 412 ms | +37.3% | 380 ms … 450 ms | ❌ fail |',
        '| chat.bench.ts › long chat | `toMeetSLO` | request throughput | ≥ 10 req/s | 9.50 req/s | -5.0% | – | ❔ inconclusive |',
        '| chat.bench.ts › long chat | `toMeetSLO` | error rate | ≤ 0% | 1.5% | – | 0.4% … 5% | ❌ fail |',
        '| chat.bench.ts › long chat | `toMeetSLO` | failed | ≤ 0 | 3 | – | – | ❌ fail |',
        '',
        'Benchmarks without a checked metric:',
        '',
        '- chat.bench.ts › embeddings: passed',
        '',
      ].join('\n'),
    )
    // The step summary carries the same rows, and a check without a detail keeps its numbers.
    const md = renderMarkdownSummary(summary, { shard: '2/3' })
    expect(md).toContain('## servebench (shard 2/3): 2 benchmarks, 1 failed')
    expect(md).toContain('### Checks')
    expect(md).toContain(
      '| chat.bench.ts › long chat | `toMeetSLO` | p99 TTFT | ≤ 300 ms | 412 ms | +37.3% | 380 ms … 450 ms | ❌ fail |',
    )
    expect(md).toContain('  - ✗ p99 TTFT: 412 ms (interval 380 ms … 450 ms), limit 300 ms\n')
    expect(md).toContain('  - ? request throughput: 9.50 req/s, limit 10 req/s\n')
  })

  it('marks a matcher its policy failed on an undecided check as inconclusive, and lists the notes', () => {
    const md = renderMarkdownSummary({
      date: '2026-12-01T18:00:00.000Z',
      reason: 'failed',
      benchmarks: [
        {
          file: 'chat.bench.ts',
          name: 'chat',
          state: 'failed',
          verdict: 'inconclusive',
          durationMs: 10,
          fingerprint: '0123456789abcdef',
          resultFile: null,
          metrics: null,
          verdicts: [
            {
              matcher: 'toMatchBaseline',
              pass: false,
              verdict: 'inconclusive',
              summary: 'Baseline undecided: p99 TTFT +12.0%',
              checks: [],
            },
          ],
          errors: ['Baseline undecided: p99 TTFT +12.0%'],
          warnings: [
            'p99 TTFT (toMatchBaseline) cannot be decided within the budget (2,000 requests in all)',
          ],
        },
      ],
    })
    expect(md).toContain('- ❔ **chat** `toMatchBaseline`: Baseline undecided: p99 TTFT +12.0%\n')
    expect(md).toContain(
      '- ⚠️ **chat** note: p99 TTFT (toMatchBaseline) cannot be decided within the budget (2,000 requests in all)\n',
    )
    expect(md).not.toContain('❌ **chat**')
  })
})

describe('servebench compare --markdown', () => {
  const result = (
    ttftMs: number,
    throughput: number,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    date: '20261201-180000',
    completed: 64,
    failed: 0,
    duration: 4,
    request_throughput: throughput,
    output_throughput: throughput * 64,
    mean_ttft_ms: ttftMs,
    p99_ttft_ms: ttftMs * 1.5,
    ...extra,
  })

  it('judges point changes by the tolerance when the files hold no per-request data', () => {
    const md = renderCompareMarkdown(
      { path: 'main.json', result: result(40, 16) },
      { path: 'pr.json', result: result(48, 15.5) },
    )
    expect(md).toBe(
      [
        '<!-- servebench:pr-comment -->',
        '## servebench compare: ❌ 2 of 5 checks failed',
        '',
        'Base `main.json` (20261201-180000), head `pr.json` (20261201-180000); 10% tolerance.',
        '',
        '| Metric | Base | Head | Change | Interval | Verdict |',
        '|---|---:|---:|---:|---|---|',
        '| request_throughput | 16 req/s | 15.5 req/s | -3.1% | – | ✅ pass |',
        '| output_throughput | 1024 tok/s | 992 tok/s | -3.1% | – | ✅ pass |',
        '| mean_ttft_ms | 40 ms | 48 ms | +20.0% | – | ❌ fail |',
        '| p99_ttft_ms | 60 ms | 72 ms | +20.0% | – | ❌ fail |',
        '| failed | 0 | 0 | – | – | ✅ pass |',
        '',
        'No per-request data in these files (`--save-detailed`): verdicts compare the point change with the tolerance.',
        '',
      ].join('\n'),
    )
  })

  it('gives latency rows a bootstrap interval and verdict when both files hold per-request arrays', () => {
    const detailed = (ttftMs: number): Record<string, unknown> => {
      const n = 96
      const ttfts = Array.from({ length: n }, (_, i) => (ttftMs + (i % 12)) / 1000)
      return result(ttftMs + 5.5, 16, {
        ttfts,
        latencies: ttfts.map((t) => t + 0.2),
        output_lens: ttfts.map(() => 21),
        start_times: ttfts.map((_, i) => i * 0.05),
        itls: ttfts.map(() => Array.from({ length: 20 }, () => 0.01)),
        errors: ttfts.map(() => ''),
      })
    }
    const same = renderCompareMarkdown(
      { path: 'a.json', result: detailed(40) },
      { path: 'b.json', result: detailed(40) },
    )
    expect(same).toContain('| mean_ttft_ms | 45.5 ms | 45.5 ms | +0.0% | ')
    expect(same).toMatch(
      /\| mean_ttft_ms \| 45\.5 ms \| 45\.5 ms \| \+0\.0% \| -\d\.\d% … \+\d\.\d% \| ✅ pass \|/,
    )
    expect(same).not.toContain('No per-request data')
    const slower = renderCompareMarkdown(
      { path: 'a.json', result: detailed(40) },
      { path: 'b.json', result: detailed(60) },
    )
    expect(slower).toMatch(
      /\| mean_ttft_ms \| 45\.5 ms \| 65\.5 ms \| \+44\.0% \| \+\d\d\.\d% … \+\d\d\.\d% \| ❌ fail \|/,
    )
  })
})
