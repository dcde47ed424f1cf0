import { describe, expect, it } from 'vitest'
import { renderJunitXml } from './junit.ts'
import type { SummaryBenchmark } from './run-summary.ts'

const base: SummaryBenchmark = {
  file: 'chat.bench.ts',
  name: 'chat > "short" & <fast>',
  state: 'failed',
  verdict: 'fail',
  durationMs: 1500,
  fingerprint: '0123456789abcdef',
  resultFile: 'run-20261201-181101/chat.json',
  metrics: null,
  verdicts: [
    {
      matcher: 'toMeetSLO',
      pass: false,
      verdict: 'fail',
      summary: 'SLO missed: p99 TTFT 412.3 ms > 300 ms',
      checks: [{ metric: 'p99 TTFT', actual: 412.3, limit: 300, unit: 'ms', pass: false, verdict: 'fail' }],
    },
  ],
  errors: ['SLO missed: p99 TTFT 412.3 ms > 300 ms\n  ✗ p99 TTFT 412.3 ms > 300 ms'],
}

describe('renderJunitXml', () => {
  it('writes a suite per file and a failure naming each failed check, escaped', () => {
    const xml = renderJunitXml({
      date: '2026-12-01T18:11:01.000Z',
      reason: 'failed',
      benchmarks: [
        base,
        {
          ...base,
          name: 'skipped one',
          state: 'skipped',
          verdict: null,
          verdicts: [],
          errors: [],
          durationMs: null,
          resultFile: null,
        },
      ],
    })
    expect(xml).toBe(`<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="servebench" tests="2" failures="1" errors="0" skipped="1" time="1.500">
  <testsuite name="chat.bench.ts" timestamp="2026-12-01T18:11:01.000Z" tests="2" failures="1" errors="0" skipped="1" time="1.500">
    <testcase classname="chat.bench.ts" name="chat &gt; &quot;short&quot; &amp; &lt;fast&gt;" time="1.500">
      <properties>
        <property name="servebench.verdict" value="fail"/>
        <property name="servebench.fingerprint" value="0123456789abcdef"/>
        <property name="servebench.result_file" value="run-20261201-181101/chat.json"/>
      </properties>
      <failure message="SLO missed: p99 TTFT 412.3 ms &gt; 300 ms" type="toMeetSLO">toMeetSLO: ✗ p99 TTFT 412.3 ms &gt; 300 ms</failure>
    </testcase>
    <testcase classname="chat.bench.ts" name="skipped one" time="0.000">
      <properties>
        <property name="servebench.fingerprint" value="0123456789abcdef"/>
      </properties>
      <skipped/>
    </testcase>
  </testsuite>
</testsuites>
`)
  })

  it('drops control characters that XML cannot hold', () => {
    const xml = renderJunitXml({
      date: 'd',
      reason: 'failed',
      benchmarks: [{ ...base, verdicts: [], errors: ['bad \u0001byte\tand tab'] }],
    })
    expect(xml).toContain('<failure message="bad byte\tand tab" type="Error">bad byte\tand tab</failure>')
  })
})

describe('an interval read back from JSON', () => {
  it('prints an infinite end that JSON turned into null as ∞', () => {
    const fromJson = JSON.parse(
      JSON.stringify({
        ...base,
        verdicts: [
          {
            ...base.verdicts[0],
            checks: [{ ...base.verdicts[0]!.checks[0], interval: [380.1, Number.POSITIVE_INFINITY] }],
          },
        ],
      }),
    )
    const xml = renderJunitXml({ date: 'd', reason: 'failed', benchmarks: [fromJson] })
    expect(xml).toContain('toMeetSLO: ✗ p99 TTFT 412.3 ms &gt; 300 ms (95% CI 380.1 … ∞ ms)</failure>')
  })
})
