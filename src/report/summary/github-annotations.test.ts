import { describe, expect, it } from 'vitest'
import { benchmarkAnnotations, formatAnnotation } from './github-annotations.ts'
import type { SummaryBenchmark, VerdictCheck } from './run-summary.ts'

const check = (over: Partial<VerdictCheck>): VerdictCheck => ({
  metric: 'p99 TTFT',
  actual: 412.3,
  limit: 300,
  unit: 'ms',
  pass: false,
  verdict: 'fail',
  ...over,
})

const bench = (over: Partial<SummaryBenchmark>): SummaryBenchmark => ({
  file: 'chat.bench.ts',
  name: 'chat > short',
  state: 'failed',
  verdict: 'fail',
  durationMs: 10,
  fingerprint: '0123456789abcdef',
  resultFile: null,
  metrics: null,
  verdicts: [],
  errors: [],
  ...over,
})

const at = { file: 'suites/chat.bench.ts', line: 12, column: 3 }

describe('benchmarkAnnotations', () => {
  it('gives a failed check an error and an inconclusive passing one a warning, at the benchmark', () => {
    const lines = benchmarkAnnotations(
      bench({
        verdicts: [
          {
            matcher: 'toMeetSLO',
            pass: false,
            verdict: 'fail',
            summary: 'SLO missed: p99 TTFT 412.3 ms > 300 ms',
            checks: [
              check({}),
              check({ metric: 'mean TPOT', actual: 9, limit: 10, pass: true, verdict: 'inconclusive' }),
              check({
                metric: 'error rate',
                actual: 0,
                limit: 0.01,
                unit: 'fraction',
                pass: true,
                verdict: 'pass',
              }),
            ],
          },
        ],
      }),
      at,
    ).map(formatAnnotation)
    expect(lines).toEqual([
      '::error file=suites/chat.bench.ts,line=12,col=3,title=servebench%3A chat > short › toMeetSLO p99 TTFT::✗ p99 TTFT 412.3 ms > 300 ms',
      '::warning file=suites/chat.bench.ts,line=12,col=3,title=servebench%3A chat > short › toMeetSLO mean TPOT::? mean TPOT 9.0 ms ≤ 10 ms — inconclusive',
    ])
  })

  it('warns once for an invalid run and reports an error that no check explains', () => {
    const lines = benchmarkAnnotations(
      bench({
        verdict: 'invalid',
        invalidReason: 'client self-check: event-loop delay p99 80 ms',
        verdicts: [
          {
            matcher: 'toMeetSLO',
            pass: false,
            verdict: 'invalid',
            summary: 'SLO invalid: …',
            checks: [check({ verdict: 'invalid' })],
          },
        ],
        errors: ['SLO invalid: …', 'Endpoint not ready after 5s: ECONNREFUSED\n  at …'],
      }),
      { file: 'a.bench.ts' },
    ).map(formatAnnotation)
    expect(lines).toEqual([
      '::warning file=a.bench.ts,title=servebench%3A chat > short › invalid::client self-check: event-loop delay p99 80 ms',
      '::error file=a.bench.ts,title=servebench%3A chat > short › failed::Endpoint not ready after 5s: ECONNREFUSED',
    ])
  })

  it('keeps an inconclusive check a warning when the policy failed the benchmark on it', () => {
    const undecided = 'Baseline undecided: p99 TTFT +12.0% (95% CI -3.0% … +30.1%, p=0.08)'
    const lines = benchmarkAnnotations(
      bench({
        verdict: 'inconclusive',
        verdicts: [
          {
            matcher: 'toMatchBaseline',
            pass: false,
            verdict: 'inconclusive',
            summary: undecided,
            checks: [check({ actual: 336, limit: 300, verdict: 'inconclusive' })],
          },
        ],
        errors: [`${undecided}\n  ? p99 TTFT …`],
      }),
      at,
    )
    expect(lines.map((a) => a.command)).toEqual(['warning'])
  })

  it('says nothing for a passing benchmark and skips a miss that .not expected', () => {
    const passing = bench({
      state: 'passed',
      verdict: 'pass',
      verdicts: [{ matcher: 'toMeetSLO', pass: true, verdict: 'fail', summary: '…', checks: [check({})] }],
    })
    expect(benchmarkAnnotations(passing, at)).toEqual([])
  })

  it('escapes newlines, percent signs, colons and commas as GitHub requires', () => {
    expect(
      formatAnnotation({ command: 'error', file: 'a,b:c.ts', title: 't', message: '50% of\nrequests' }),
    ).toBe('::error file=a%2Cb%3Ac.ts,title=t::50%25 of%0Arequests')
  })
})
