import { describe, expect, it } from 'vitest'
import type { BenchResult } from '../../report/result-types.ts'
import type { ServeBenchMeta } from '../shared/meta.ts'
import { servebenchMatchers } from './matchers.ts'

// Four requests: TTFTs 100–400 ms, 5 tokens each; the last one failed.
function result(): BenchResult {
  return {
    completed: 3,
    failed: 1,
    duration: 2,
    request_throughput: 1.5,
    output_throughput: 7.5,
    ttfts: [0.1, 0.2, 0.3, 0],
    latencies: [0.5, 0.6, 0.7, 0],
    itls: [[0.1, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.1], []],
    output_lens: [5, 5, 5, 0],
    input_lens: [8, 8, 8, 8],
    start_times: [0, 0, 0, 0],
    errors: ['', '', '', 'HTTP 500'],
  } as unknown as BenchResult
}

function context(isNot = false): { isNot: boolean; task: { meta: { servebench: ServeBenchMeta } } } {
  return {
    isNot,
    task: { meta: { servebench: { name: 'b', fingerprint: 'f', verdicts: [], goodput: { ttft: 250 } } } },
  }
}

describe('toMeetSLO', () => {
  it('starts the message with the verdict and lists every checked metric', () => {
    const ctx = context()
    const r = servebenchMatchers.toMeetSLO.call(ctx as never, result(), {
      ttft: { p50: 150, max: 1000 },
      errorRate: 0.1,
    })
    expect(r.pass).toBe(false)
    expect(r.message()).toMatchInlineSnapshot(`
      "SLO missed: p50 TTFT 200.0 ms > 150 ms; error rate 25.0% > 10%
        ✗ p50 TTFT 200.0 ms > 150 ms
        ✓ max TTFT 300.0 ms ≤ 1000 ms
        ✗ error rate 25.0% > 10%"
    `)
  })

  it('computes any percentile from the successful requests only', () => {
    const r = servebenchMatchers.toMeetSLO.call(context() as never, result(), {
      tpot: { 'p99.9': 100 },
      e2el: { mean: 600 },
    })
    expect(r.pass).toBe(true)
    expect(r.message().split('\n')[0]).toBe(
      'SLO met: p99.9 TPOT 100.0 ms ≤ 100 ms; mean E2EL 600.0 ms ≤ 600 ms',
    )
  })

  it('appends verdicts, with .not reflected in pass', () => {
    const ctx = context()
    servebenchMatchers.toMeetSLO.call(ctx as never, result(), { failed: 1 })
    servebenchMatchers.toMeetSLO.call({ ...ctx, isNot: true } as never, result(), { failed: 0 })
    expect(ctx.task.meta.servebench.verdicts.map((v) => [v.pass, v.summary])).toEqual([
      [true, 'SLO met: failed requests 1 ≤ 1'],
      [true, 'SLO missed: failed requests 1 > 0'],
    ])
  })

  it('throws a TypeError for a wrong argument instead of failing', () => {
    const call = (slo: unknown) => () =>
      servebenchMatchers.toMeetSLO.call(context() as never, result(), slo as never)
    expect(call({ ttft: { p99x: 1 } })).toThrow(
      new TypeError('toMeetSLO: ttft.p99x is not a statistic (use mean, median, std, min, max or p0–p100)'),
    )
    expect(call({ tftt: { p99: 1 } })).toThrow(TypeError)
    expect(call({ errorRate: 5 })).toThrow('toMeetSLO: errorRate must be a fraction in [0, 1] (got 5)')
    expect(() => servebenchMatchers.toMeetSLO.call(context() as never, { p99_ttft_ms: 3 }, {})).toThrow(
      'toMeetSLO expects the result that serveBench passes to its assertions (got {"p99_ttft_ms":3})',
    )
  })
})

describe('toHaveGoodput', () => {
  it("judges requests by the benchmark's goodput SLO, failures counting as not good", () => {
    const r = servebenchMatchers.toHaveGoodput.call(context() as never, result(), { min: 0.5, minRps: 2 })
    expect(r.pass).toBe(false)
    expect(r.message()).toMatchInlineSnapshot(`
      "Goodput missed: request goodput 1.00 req/s < 2 req/s (2 of 4 requests within TTFT ≤ 250 ms)
        ✓ goodput 50.0% ≥ 50%
        ✗ request goodput 1.00 req/s < 2 req/s"
    `)
  })

  it('needs an SLO and a bound', () => {
    const none = {
      isNot: false,
      task: { meta: { servebench: { name: 'b', fingerprint: 'f', verdicts: [] } } },
    }
    expect(() => servebenchMatchers.toHaveGoodput.call(none as never, result(), { min: 0.9 })).toThrow(
      TypeError,
    )
    expect(() => servebenchMatchers.toHaveGoodput.call(context() as never, result(), {})).toThrow(
      'toHaveGoodput needs min (a fraction) or minRps',
    )
  })
})
