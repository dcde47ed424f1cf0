import { describe, expect, it } from 'vitest'
import { type ClientHealthSummary, summarizeClientHealth } from '../../metrics/client-health.ts'
import { clientHealthJson, clientResultKeys, formatClientHealthLine } from './client-keys.ts'
import { toPythonJson } from './py-json.ts'

const loop = {
  spanS: 2,
  eventLoopDelayMs: { p50: 0.3, p99: 1.24, max: 4 },
  eventLoopDelaySamples: 900,
  eventLoopUtilization: 0.23,
  cpuTimeMs: 460,
  gcPausesMs: [5, 7],
}
const run = {
  main: loop,
  dispatch: { loop: 'open' as const, latenessMs: Array.from({ length: 20 }, () => 0.4) },
  scales: { readingMs: 20, readingMetric: 'itl' as const, sendingMs: 48 },
  succeeded: 20,
  cpuCount: 2,
}

const ok: ClientHealthSummary = summarizeClientHealth(run)

const saturated: ClientHealthSummary = summarizeClientHealth({
  ...run,
  main: {
    ...loop,
    gcPausesMs: [],
    eventLoopDelayMs: { p50: 3, p99: 62, max: 70 },
    eventLoopUtilization: 0.95,
  },
  dispatch: { loop: 'open', latenessMs: Array.from({ length: 20 }, () => 58.7) },
})

describe('client keys', () => {
  it('prints one ok line with the headline figures and their limits', () => {
    expect(formatClientHealthLine(ok)).toBe(
      'Client self-check: ok — event-loop delay p99 1.2 ms (limit 5 ms), busy 23%, dispatch lag p99 0.4 ms (limit 12 ms), GC 12 ms\n',
    )
  })

  it('prints SATURATED, every reason and the remedy', () => {
    expect(formatClientHealthLine(saturated)).toBe(
      'Client self-check: SATURATED — event-loop delay p99 62 ms (limit 5 ms for a median ITL of 20 ms): the client, not the server, set these latencies; ' +
        'event loop busy 95% of the time (limit 90%): the client had no time to spare for reading responses; ' +
        'dispatch lag p99 58.7 ms (limit 12 ms for a median latency of 48 ms): requests left later than scheduled, so the server got less load than asked. ' +
        "Remedy: a smaller concurrency per process (--segment splits the run over processes or machines: it needs about 2 threads, more than the 1 this machine's cores leave)\n",
    )
  })

  it('says when a run was too short to judge, or had nothing to judge', () => {
    const short = summarizeClientHealth({ ...run, main: { ...loop, spanS: 0.016, eventLoopDelaySamples: 7 } })
    expect(formatClientHealthLine(short)).toBe(
      'Client self-check: too short to judge — event-loop delay not judged: 0.016 s of run and 7 samples (it needs 0.25 s and 20)\n',
    )
    expect(short.unjudged).toEqual([
      'event-loop delay not judged: 0.016 s of run and 7 samples (it needs 0.25 s and 20)',
      'event-loop busy share not judged: 0.016 s of run (it needs 1 s)',
      'GC pauses not judged: 0.016 s of run (it needs 0.25 s)',
    ])
    expect(short).toMatchObject({ state: 'too-short', saturated: false, reasons: [] })
    expect(formatClientHealthLine(summarizeClientHealth({ ...run, succeeded: 0 }))).toBe(
      'Client self-check: not judged — no request succeeded\n',
    )
  })

  it('names a closed loop first wave on the ok line', () => {
    const closed = summarizeClientHealth({
      ...run,
      dispatch: { loop: 'closed', latenessMs: [], firstWave: { requests: 500, releaseMs: 38.2 } },
    })
    expect(formatClientHealthLine(closed)).toBe(
      'Client self-check: ok — event-loop delay p99 1.2 ms (limit 5 ms), busy 23%, dispatch lag not judged, GC 12 ms, first wave of 500 released in 38.2 ms\n',
    )
  })

  it('writes client_health with snake_case keys, the scales and the limits', () => {
    expect(clientHealthJson(saturated)).toEqual({
      state: 'saturated',
      saturated: true,
      reasons: saturated.reasons,
      remedy:
        "a smaller concurrency per process (--segment splits the run over processes or machines: it needs about 2 threads, more than the 1 this machine's cores leave)",
      unjudged: [],
      loop: 'open',
      duration_s: 2,
      event_loop_delay_p50_ms: 3,
      event_loop_delay_p99_ms: 62,
      event_loop_delay_max_ms: 70,
      event_loop_delay_samples: 900,
      event_loop_utilization: 0.95,
      dispatch_lag_p50_ms: 58.7,
      dispatch_lag_p99_ms: 58.7,
      dispatch_lag_max_ms: 58.7,
      dispatch_lag_samples: 20,
      cpu_share_of_core: 0.23,
      cpu_count: 2,
      gc_count: 0,
      gc_total_ms: 0,
      gc_max_ms: 0,
      latency_scale: { reading_ms: 20, reading_metric: 'itl', sending_ms: 48 },
      thresholds: {
        event_loop_delay_p99_ms: 5,
        dispatch_lag_p99_ms: 12,
        event_loop_utilization: 0.9,
        gc_max_ms: 100,
      },
    })
  })

  it('writes the client threads and the transport after cpu_count, when the runner set them', () => {
    const json = clientHealthJson({ ...ok, clientThreads: 2, httpTransport: 'lean' })
    const keys = Object.keys(json)
    expect(keys.slice(keys.indexOf('cpu_count'), keys.indexOf('cpu_count') + 3)).toEqual([
      'cpu_count',
      'client_threads',
      'http_transport',
    ])
    expect(json).toMatchObject({ client_threads: 2, http_transport: 'lean' })
    expect(clientHealthJson(ok)).not.toHaveProperty('http_transport')
  })

  it('orders the keys: intended statistics, intended_delays, client_health', () => {
    const keys = clientResultKeys({
      intended: { statistics: [['mean_intended_ttft_ms', 12]], delaysS: [0, 0.5] },
      clientHealth: ok,
    })
    expect(keys.map(([k]) => k)).toEqual(['mean_intended_ttft_ms', 'intended_delays', 'client_health'])
    expect(toPythonJson(Object.fromEntries(keys)).slice(0, 71)).toBe(
      '{"mean_intended_ttft_ms": 12.0, "intended_delays": [0.0, 0.5], "client_',
    )
  })

  it('writes nothing for a closed loop with the check off', () => {
    expect(clientResultKeys({})).toEqual([])
  })
})
