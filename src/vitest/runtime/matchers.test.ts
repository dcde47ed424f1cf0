import { describe, expect, it } from 'vitest'
import type { PoolingBenchResult } from '../../report/result/pooling-result.ts'
import type { BenchResult } from '../../report/result/result-types.ts'
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
      "SLO undecided: p50 TTFT 200.0 ms > 150 ms; error rate 25.0% > 10%
        ? p50 TTFT 200.0 ms > 150 ms (95% CI −∞ … ∞ ms) — inconclusive; about 40 requests would decide it
        ✓ max TTFT 300.0 ms ≤ 1000 ms (95% CI 300.0 … 300.0 ms)
        ? error rate 25.0% > 10% (95% CI 4.6% … 69.9%) — inconclusive; about 16 requests would decide it"
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
        ? goodput 50.0% ≥ 50% (95% CI 15.0% … 85.0%) — inconclusive; more requests would not decide it (the estimate sits on the bound)
        ✗ request goodput 1.00 req/s < 2 req/s (95% CI 0.30 … 1.70 req/s)"
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
        ✓ max E2EL 40.0 ms ≤ 50 ms (95% CI 20.0 … 40.0 ms)
        ? mean E2EL 30.0 ms > 25 ms (95% CI 20.0 … 40.0 ms) — inconclusive; about 8 requests would decide it
        ✓ request throughput 2.00 req/s ≥ 1 req/s
        ? error rate 33.3% ≤ 50% (95% CI 6.1% … 79.2%) — inconclusive; about 35 requests would decide it
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

// 400 requests with TTFTs 1–400 ms: enough for a p90 interval from order statistics.
function many(n = 400): BenchResult {
  const ttfts = Array.from({ length: n }, (_, i) => (i + 1) / 1000)
  return {
    completed: n,
    failed: 0,
    duration: 10,
    request_throughput: n / 10,
    output_throughput: (n * 5) / 10,
    ttfts,
    latencies: ttfts.map((t) => t + 0.4),
    itls: ttfts.map(() => [0.1, 0.1, 0.1, 0.1]),
    output_lens: ttfts.map(() => 5),
    input_lens: ttfts.map(() => 8),
    start_times: ttfts.map((_, i) => i / 40),
    errors: ttfts.map(() => ''),
  } as unknown as BenchResult
}

describe('three-valued verdicts', () => {
  it('passes when the whole interval is within the bound, fails when it is outside, else is inconclusive', () => {
    // p90 of 1..400 ms is 360.1 ms; its 95% interval from order statistics is about 348 … 372 ms.
    const verdictAt = (limit: number): string => {
      const ctx = context()
      servebenchMatchers.toMeetSLO.call(ctx as never, many(), { ttft: { p90: limit } })
      return ctx.task.meta.servebench.verdicts[0]!.checks[0]!.verdict
    }
    expect(verdictAt(400)).toBe('pass')
    expect(verdictAt(300)).toBe('fail')
    expect(verdictAt(361)).toBe('inconclusive')
    expect(verdictAt(359)).toBe('inconclusive')
  })

  it('decides exactly at the interval ends: an upper end equal to the bound passes', () => {
    const ctx = context()
    servebenchMatchers.toMeetSLO.call(ctx as never, many(), { ttft: { p90: 400 } })
    const [lo, hi] = ctx.task.meta.servebench.verdicts[0]!.checks[0]!.interval!
    const at = (limit: number): string => {
      const c = context()
      servebenchMatchers.toMeetSLO.call(c as never, many(), { ttft: { p90: limit } })
      return c.task.meta.servebench.verdicts[0]!.checks[0]!.verdict
    }
    expect(at(hi)).toBe('pass')
    expect(at(lo)).toBe('inconclusive')
    expect(at(lo - 0.001)).toBe('fail')
  })

  it('applies the inconclusive policy: point (the estimate decides), fail, warn', () => {
    const run = (policy: 'point' | 'fail' | 'warn', limit: number): boolean => {
      const ctx = context()
      ctx.task.meta.servebench.inconclusivePolicy = policy
      return servebenchMatchers.toMeetSLO.call(ctx as never, many(), { ttft: { p90: limit } }).pass
    }
    expect([run('point', 365), run('point', 355)]).toEqual([true, false])
    expect([run('fail', 365), run('fail', 355)]).toEqual([false, false])
    expect([run('warn', 365), run('warn', 355)]).toEqual([true, true])
  })

  it('says how many requests would decide an inconclusive check', () => {
    const ctx = context()
    const r = servebenchMatchers.toMeetSLO.call(ctx as never, many(100), { ttft: { p99: 200 } })
    const check = ctx.task.meta.servebench.verdicts[0]!.checks[0]!
    // The upper bound of p99 needs at least 368 samples to exist at all.
    expect(check.verdict).toBe('inconclusive')
    expect(check.neededRequests).toBeGreaterThanOrEqual(368)
    expect(r.pass).toBe(true)
    expect(r.message()).toMatch(
      /^ {2}\? p99 TTFT 99\.0 ms ≤ 200 ms \(95% CI .* … ∞ ms\) — inconclusive; about \d+ requests would decide it$/m,
    )
  })

  it('in probe mode records the verdict and never fails the assertion', () => {
    const ctx = context()
    ctx.task.meta.servebench.probing = true
    const r = servebenchMatchers.toMeetSLO.call(ctx as never, many(), { ttft: { p90: 100 } })
    expect(r.pass).toBe(true)
    expect(ctx.task.meta.servebench.verdicts[0]).toMatchObject({ verdict: 'fail', pass: false })
  })

  it('marks every check of an invalid run invalid and fails with the reason', () => {
    const ctx = context()
    ctx.task.meta.servebench.invalid =
      'event-loop delay p99 38 ms: the client, not the server, set these latencies'
    const r = servebenchMatchers.toMeetSLO.call(ctx as never, many(), { ttft: { p90: 400 } })
    expect(r.pass).toBe(false)
    expect(r.message().split('\n')[0]).toBe(
      'SLO invalid: event-loop delay p99 38 ms: the client, not the server, set these latencies',
    )
    expect(ctx.task.meta.servebench.verdicts[0]).toMatchObject({
      verdict: 'invalid',
      checks: [{ verdict: 'invalid' }],
    })
  })
})

describe('SLOs on latency from the intended send time', () => {
  it('bounds TTFT plus each request’s delay behind its schedule', () => {
    // 400 requests whose sends fell 1 s behind their schedule: TTFTs 1–400 ms become 1001–1400 ms.
    const r = { ...many(), intended_delays: many().ttfts.map(() => 1) } as unknown as BenchResult
    const ctx = context()
    const met = servebenchMatchers.toMeetSLO.call(ctx as never, r, {
      ttft: { p90: 400 },
      intendedTtft: { p90: 400 },
    })
    expect(met.pass).toBe(false)
    expect(ctx.task.meta.servebench.verdicts[0]!.checks.map((c) => [c.metric, c.verdict])).toEqual([
      ['p90 TTFT', 'pass'],
      ['p90 TTFT from intended send', 'fail'],
    ])
  })

  it('is a TypeError on a closed loop, which has no intended send times', () => {
    expect(() =>
      servebenchMatchers.toMeetSLO.call(context() as never, many(), { intendedE2el: { p99: 1 } }),
    ).toThrow(
      'toMeetSLO: intendedE2el needs an open-loop run (a finite load rate, a ramp-up or a trace): a closed loop has no intended send times',
    )
  })
})

describe('toMatchBaseline on an invalid run', () => {
  it('neither writes nor compares, and fails with the reason', () => {
    const ctx = context()
    ctx.task.meta.servebench.invalid =
      'event-loop delay p99 62 ms (limit 50 ms): the client, not the server, set these latencies'
    const task = { ...ctx.task, file: { filepath: '/nowhere/x.bench.ts' }, name: 'b' }
    const r = servebenchMatchers.toMatchBaseline.call({ isNot: false, task } as never, many(), {})
    expect(r.pass).toBe(false)
    expect(r.message()).toBe(
      'Baseline invalid: event-loop delay p99 62 ms (limit 50 ms): the client, not the server, set these latencies',
    )
    expect(ctx.task.meta.servebench.verdicts).toMatchObject([
      { matcher: 'toMatchBaseline', verdict: 'invalid' },
    ])
  })
})
