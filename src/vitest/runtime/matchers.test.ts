import { describe, expect, it } from 'vitest'
import type { PoolingBenchResult } from '../../report/pooling-result.ts'
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

// An embeddings run: three requests, the last one failed; no token stream and no `failed` key.
function pooling(): PoolingBenchResult {
  return {
    backend: 'openai-embeddings',
    completed: 2,
    duration: 1,
    request_throughput: 2,
    total_input_sequences: 3,
    input_sequence_throughput: 3,
    total_token_throughput: 24,
    input_lens: [8, 8, 8],
    latencies: [0.02, 0.04, 0],
    queue_times: [0, 0, 0],
    errors: ['', '', 'HTTP 500'],
  } as unknown as PoolingBenchResult
}

describe('matchers on a pooling result', () => {
  it('toMeetSLO checks end-to-end latency, request throughput and failures', () => {
    const r = servebenchMatchers.toMeetSLO.call(context() as never, pooling(), {
      e2el: { max: 50, mean: 25 },
      requestThroughput: { min: 1 },
      failed: 0,
      errorRate: 0.5,
    })
    expect(r.pass).toBe(false)
    expect(r.message()).toMatchInlineSnapshot(`
      "SLO missed: mean E2EL 30.0 ms > 25 ms; failed requests 1 > 0
        ✓ max E2EL 40.0 ms ≤ 50 ms
        ✗ mean E2EL 30.0 ms > 25 ms
        ✓ request throughput 2.00 req/s ≥ 1 req/s
        ✓ error rate 33.3% ≤ 50%
        ✗ failed requests 1 > 0"
    `)
  })

  it('toMeetSLO gives a TypeError for bounds on a token stream that is not there', () => {
    const call = (slo: unknown) => () =>
      servebenchMatchers.toMeetSLO.call(context() as never, pooling(), slo as never)
    expect(call({ ttft: { p99: 100 }, e2el: { p99: 100 } })).toThrow(
      new TypeError(
        'toMeetSLO: ttft needs a token stream, but this is a pooling run (openai-embeddings) with no output tokens; bound e2el, requestThroughput, errorRate or failed',
      ),
    )
    expect(call({ tpot: { mean: 1 }, itl: { mean: 1 }, outputThroughput: { min: 1 } })).toThrow(
      'toMeetSLO: tpot, itl, outputThroughput need a token stream, but this is a pooling run (openai-embeddings) with no output tokens; bound e2el, requestThroughput, errorRate or failed',
    )
  })

  it('toHaveGoodput judges end-to-end latency only', () => {
    const r = servebenchMatchers.toHaveGoodput.call(context() as never, pooling(), {
      min: 0.3,
      slo: { e2el: 30 },
    })
    expect(r.message().split('\n')[0]).toBe(
      'Goodput met: goodput 33.3% ≥ 30% (1 of 3 requests within E2EL ≤ 30 ms)',
    )
    // The benchmark's goodput option here bounds TTFT, which a pooling run does not have.
    expect(() => servebenchMatchers.toHaveGoodput.call(context() as never, pooling(), { min: 0.3 })).toThrow(
      new TypeError(
        'toHaveGoodput: a pooling run (openai-embeddings) has no token stream, so its goodput SLO can bound only e2el (got TTFT ≤ 250 ms)',
      ),
    )
  })
})
