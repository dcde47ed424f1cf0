import { describe, expect, it } from 'vitest'
import {
  type ClientHealthInput,
  type LoopSamples,
  DEFAULT_CLIENT_HEALTH_POLICY as P,
  scaledLimitMs,
  summarizeClientHealth,
} from './client-health.ts'
import { judgeAtScale, latencyScales } from './client-health-scale.ts'

const loop = (over: Partial<LoopSamples> = {}): LoopSamples => ({
  spanS: 2,
  eventLoopDelayMs: { p50: 0.3, p99: 1.2, max: 4 },
  eventLoopDelaySamples: 900,
  eventLoopUtilization: 0.2,
  cpuTimeMs: 460,
  gcPausesMs: [5, 7],
  ...over,
})

// A run of 40 streamed requests whose median ITL is 20 ms: limits max(5, 20/4) = 5 ms reading,
// and a quarter of the 400 ms median latency (capped at 50) for sending.
const input = (over: Partial<ClientHealthInput> = {}): ClientHealthInput => ({
  main: loop(),
  dispatch: { loop: 'open', latenessMs: Array.from({ length: 40 }, () => 0.4) },
  scales: { readingMs: 20, readingMetric: 'itl', sendingMs: 400 },
  succeeded: 40,
  cpuCount: 4,
  ...over,
})

describe('limits that scale with the latencies measured', () => {
  it('takes a quarter of the scale, within 5–50 ms', () => {
    expect(scaledLimitMs(2, P)).toBe(5)
    expect(scaledLimitMs(48, P)).toBe(12)
    expect(scaledLimitMs(500, P)).toBe(50)
    expect(scaledLimitMs(undefined, P)).toBe(50)
  })

  it('reads the scales from the successful requests: ITL for streams, else the latency', () => {
    const stream = (itlMs: number[], ttftMs: number, latencyMs: number, success = true) => ({
      success,
      itlS: itlMs.map((ms) => ms / 1000),
      ttftS: ttftMs / 1000,
      latencyS: latencyMs / 1000,
    })
    expect(
      latencyScales([stream([2, 2, 3], 40, 100), stream([2, 9], 60, 300), stream([50, 50], 9, 900, false)]),
    ).toEqual({
      readingMs: 2,
      readingMetric: 'itl',
      sendingMs: 200,
      medians: { itl: 2, ttft: 50, decode: 150, e2el: 200 },
    })
    expect(latencyScales([stream([], 3, 3), stream([], 5, 5)])).toEqual({
      readingMs: 4,
      readingMetric: 'e2el',
      sendingMs: 4,
      medians: { ttft: 4, e2el: 4 },
    })
    expect(latencyScales([stream([], 3, 3, false)])).toEqual({})
  })

  it('judges a run again at the finest latency a suite checks: a stall that distorts ITL may not move TTFT', () => {
    const run = input({
      main: loop({ eventLoopDelayMs: { p50: 1, p99: 6, max: 9 } }),
      scales: {
        readingMs: 10,
        readingMetric: 'itl',
        sendingMs: 370,
        medians: { itl: 10, ttft: 35, decode: 330, e2el: 370 },
      },
    })
    const atItl = summarizeClientHealth(run)
    expect(atItl.state).toBe('saturated')
    // Checks on mean TTFT, mean TPOT and throughput: the finest is TTFT, limit 35 / 4 = 8.75 ms.
    const atChecks = judgeAtScale({ ...atItl, clientThreads: 1 }, ['ttft', 'decode', 'e2el'])
    expect(atChecks).toMatchObject({ state: 'ok', clientThreads: 1, scales: { readingMetric: 'ttft' } })
    expect(atChecks.thresholds.eventLoopDelayP99Ms).toBe(8.75)
    // A check on ITL keeps the ITL limit.
    expect(judgeAtScale(atItl, ['ttft', 'itl'])).toBe(atItl)
  })
})

describe('summarizeClientHealth', () => {
  it('passes a healthy run and reports its figures and limits', () => {
    const s = summarizeClientHealth(input())
    expect(s).toMatchObject({ state: 'ok', saturated: false, reasons: [], unjudged: [] })
    expect(s.thresholds).toEqual({
      eventLoopDelayP99Ms: 5,
      dispatchLagP99Ms: 50,
      eventLoopUtilization: 0.9,
      gcMaxMs: 100,
    })
    expect(s.cpuShareOfCore).toBeCloseTo(0.23, 12)
    expect(s.gcTotalMs).toBe(12)
    expect(s.dispatchLagSamples).toBe(40)
  })

  it('judges the event-loop delay at its scaled limit: equal is healthy, above is not', () => {
    const at = summarizeClientHealth(input({ main: loop({ eventLoopDelayMs: { p50: 1, p99: 5, max: 9 } }) }))
    expect(at.state).toBe('ok')
    const above = summarizeClientHealth(
      input({ main: loop({ eventLoopDelayMs: { p50: 1, p99: 5.1, max: 9 } }) }),
    )
    expect(above.state).toBe('saturated')
    expect(above.reasons).toEqual([
      'event-loop delay p99 5.1 ms (limit 5 ms for a median ITL of 20 ms): the client, not the server, set these latencies',
    ])
    // The same delay is noise against a 500 ms latency without a stream.
    const slow = summarizeClientHealth(
      input({
        main: loop({ eventLoopDelayMs: { p50: 1, p99: 40, max: 60 } }),
        scales: { readingMs: 500, readingMetric: 'e2el', sendingMs: 500 },
      }),
    )
    expect(slow.state).toBe('ok')
  })

  it('needs 0.25 s and 20 timer samples before the delay rule judges', () => {
    const stalled = { eventLoopDelayMs: { p50: 30, p99: 80, max: 90 } }
    const short = summarizeClientHealth(input({ main: loop({ ...stalled, spanS: 0.249 }) }))
    expect(short.state).toBe('too-short')
    expect(short.saturated).toBe(false)
    expect(short.unjudged[0]).toBe(
      'event-loop delay not judged: 0.249 s of run and 900 samples (it needs 0.25 s and 20)',
    )
    const few = summarizeClientHealth(
      input({ main: loop({ ...stalled, spanS: 0.25, eventLoopDelaySamples: 19 }) }),
    )
    expect(few.state).toBe('too-short')
    const enough = summarizeClientHealth(
      input({ main: loop({ ...stalled, spanS: 0.25, eventLoopDelaySamples: 20 }) }),
    )
    expect(enough.state).toBe('saturated')
  })

  it('judges the busy share above 90% only over a span of 1 s', () => {
    const busy = (spanS: number, utilization: number) =>
      summarizeClientHealth(input({ main: loop({ spanS, eventLoopUtilization: utilization }) }))
    expect(busy(1, 0.9).state).toBe('ok')
    expect(busy(1, 0.91).reasons).toEqual([
      'event loop busy 91% of the time (limit 90%): the client had no time to spare for reading responses',
    ])
    const short = busy(0.99, 0.99)
    expect(short.state).toBe('ok')
    expect(short.unjudged).toEqual(['event-loop busy share not judged: 0.990 s of run (it needs 1 s)'])
  })

  it('does not judge the process CPU: V8 helper threads and start-up count in it', () => {
    const s = summarizeClientHealth(input({ main: loop({ cpuTimeMs: 2_720 }) }))
    expect(s.cpuShareOfCore).toBeCloseTo(1.36, 12)
    expect(s.state).toBe('ok')
  })

  it('judges dispatch lag from 20 requests, against a quarter of the median latency', () => {
    const lags = (n: number, ms: number) =>
      summarizeClientHealth(
        input({
          dispatch: { loop: 'open', latenessMs: Array.from({ length: n }, () => ms) },
          scales: { readingMs: 20, readingMetric: 'itl', sendingMs: 48 },
        }),
      )
    expect(lags(19, 30).state).toBe('ok')
    expect(lags(19, 30).unjudged).toEqual(['dispatch lag not judged: 19 requests (it needs 20)'])
    expect(lags(20, 12).state).toBe('ok')
    expect(lags(20, 12.5).reasons).toEqual([
      'dispatch lag p99 12.5 ms (limit 12 ms for a median latency of 48 ms): requests left later than scheduled, so the server got less load than asked',
    ])
    // A request released up to 1 ms early (the dispatcher does not sleep under 1 ms) counts as 0.
    expect(lags(20, -0.8).dispatchLagP99Ms).toBe(0)
  })

  it('reports a closed loop first wave on its own and judges the lateness after it', () => {
    const wave = { requests: 2_000, releaseMs: 93 }
    const s = summarizeClientHealth(
      input({
        dispatch: { loop: 'closed', latenessMs: Array.from({ length: 100 }, () => 0.3), firstWave: wave },
      }),
    )
    expect(s).toMatchObject({ state: 'ok', firstWaveRequests: 2_000, firstWaveReleaseMs: 93, loop: 'closed' })
    // Every request in the first wave: nothing left to judge lateness on, and that is no verdict.
    const all = summarizeClientHealth(
      input({ dispatch: { loop: 'closed', latenessMs: [], firstWave: wave } }),
    )
    expect(all.state).toBe('ok')
    expect(all.unjudged).toEqual([
      'dispatch lag not judged: 0 requests started after the first wave (it needs 20)',
    ])
  })

  it('judges a GC pause above 100 ms over a span of 0.25 s', () => {
    expect(summarizeClientHealth(input({ main: loop({ gcPausesMs: [100] }) })).state).toBe('ok')
    expect(summarizeClientHealth(input({ main: loop({ gcPausesMs: [100.4] }) })).reasons).toEqual([
      'GC pause 100 ms (limit 100 ms): garbage collection stopped the client mid-run',
    ])
    const short = summarizeClientHealth(input({ main: loop({ gcPausesMs: [150], spanS: 0.2 }) }))
    expect(short.saturated).toBe(false)
  })

  it('judges nothing when no request succeeded: fast failures look like a busy loop', () => {
    const s = summarizeClientHealth(
      input({
        main: loop({ eventLoopDelayMs: { p50: 50, p99: 400, max: 500 }, eventLoopUtilization: 1 }),
        succeeded: 0,
      }),
    )
    expect(s).toMatchObject({ state: 'no-data', saturated: false, reasons: [] })
  })
})

describe('the remedy of a saturated run', () => {
  it('asks for client threads when the reading loop was busy and cores are left', () => {
    const s = summarizeClientHealth(
      input({ main: loop({ eventLoopDelayMs: { p50: 4, p99: 30, max: 60 }, eventLoopUtilization: 0.97 }) }),
    )
    expect(s.remedy).toBe(
      '--client-threads 2 (read the streams on more cores: the busiest loop was busy 97% of the run)',
    )
  })

  it('asks for a quieter machine when the loop was late although mostly idle', () => {
    const s = summarizeClientHealth(
      input({ main: loop({ eventLoopDelayMs: { p50: 4, p99: 30, max: 60 }, eventLoopUtilization: 0.25 }) }),
    )
    expect(s.remedy).toBe(
      'a quieter machine (the event loop was busy only 25% of the time, so other processes held the CPU)',
    )
  })

  it('asks for a smaller concurrency per process when every core already reads', () => {
    const busyThread = {
      samples: loop({ eventLoopDelayMs: { p50: 4, p99: 30, max: 60 }, eventLoopUtilization: 0.95 }),
    }
    const s = summarizeClientHealth(
      input({ threads: [{ samples: loop() }, busyThread, { samples: loop() }], cpuCount: 4 }),
    )
    expect(s.reasons).toEqual([
      'client thread 1: event-loop delay p99 30 ms (limit 5 ms for a median ITL of 20 ms): the client, not the server, set these latencies',
      'client thread 1: event loop busy 95% of the time (limit 90%): the client had no time to spare for reading responses',
    ])
    expect(s.remedy).toBe(
      "a smaller concurrency per process (--segment splits the run over processes or machines: it needs about 6 threads, more than the 3 this machine's cores leave)",
    )
  })
})

describe('client threads', () => {
  it('judges each thread that reads, and the main thread on what it does: dispatch', () => {
    // The main thread's loop delay does not stamp chunks in a threaded run.
    const s = summarizeClientHealth(
      input({
        main: loop({ eventLoopDelayMs: { p50: 4, p99: 30, max: 60 } }),
        threads: [{ samples: loop() }, { samples: loop() }],
      }),
    )
    expect(s.state).toBe('ok')
    expect(s.threads?.map((t) => t.state)).toEqual(['ok', 'ok'])
    expect(s.rules.filter((r) => r.rule === 'event-loop-delay').map((r) => r.thread)).toEqual([0, 1])
  })

  it('does not judge the reading of a thread that was given no request', () => {
    const idleButLate = { samples: loop({ eventLoopDelayMs: { p50: 4, p99: 14, max: 20 }, requests: 0 }) }
    const s = summarizeClientHealth(input({ threads: [{ samples: loop({ requests: 7 }) }, idleButLate] }))
    expect(s.state).toBe('ok')
    expect(s.threads?.[1]?.rules.map((r) => r.rule)).toEqual(['event-loop-busy', 'gc-pause'])
  })

  it('is saturated when a thread died, with its reason', () => {
    const s = summarizeClientHealth(
      input({ threads: [{ samples: loop() }, { dead: 'client thread 1 stopped: out of memory' }] }),
    )
    expect(s.saturated).toBe(true)
    expect(s.reasons).toEqual(['client thread 1: client thread 1 stopped: out of memory'])
  })

  it('is too short when no reading thread could judge', () => {
    const short = { samples: loop({ spanS: 0.1 }) }
    const s = summarizeClientHealth(input({ main: loop({ spanS: 0.1 }), threads: [short, short] }))
    expect(s.state).toBe('too-short')
  })
})
