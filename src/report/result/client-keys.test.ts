import { describe, expect, it } from 'vitest'
import { type ClientHealthSummary, summarizeClientHealth } from '../../metrics/client-health.ts'
import { clientHealthJson, clientResultKeys, formatClientHealthLine } from './client-keys.ts'
import { toPythonJson } from './py-json.ts'

const ok: ClientHealthSummary = summarizeClientHealth({
  durationS: 2,
  eventLoopDelayMs: { p50: 0.3, p99: 1.24, max: 4 },
  dispatchLagsMs: [0.4, 0.4],
  cpuTimeMs: 460,
  cpuCount: 2,
  gcPausesMs: [5, 7],
})

const saturated: ClientHealthSummary = summarizeClientHealth({
  ...{ durationS: 2, cpuTimeMs: 460, cpuCount: 2, gcPausesMs: [] },
  eventLoopDelayMs: { p50: 3, p99: 62, max: 70 },
  dispatchLagsMs: [58.7],
})

describe('client keys', () => {
  it('prints one ok line with the four headline figures', () => {
    expect(formatClientHealthLine(ok)).toBe(
      'Client self-check: ok — event-loop delay p99 1.2 ms, dispatch lag p99 0.4 ms, CPU 23% of a core, GC 12 ms\n',
    )
  })

  it('prints SATURATED and every reason', () => {
    expect(formatClientHealthLine(saturated)).toBe(
      'Client self-check: SATURATED — event-loop delay p99 62 ms (limit 50 ms): the client, not the server, set these latencies; ' +
        'dispatch lag p99 58.7 ms (limit 50 ms): requests left later than scheduled, so the server got less load than asked\n',
    )
  })

  it('writes client_health with snake_case keys and the thresholds', () => {
    expect(clientHealthJson(saturated)).toEqual({
      saturated: true,
      reasons: saturated.reasons,
      duration_s: 2,
      event_loop_delay_p50_ms: 3,
      event_loop_delay_p99_ms: 62,
      event_loop_delay_max_ms: 70,
      dispatch_lag_p50_ms: 58.7,
      dispatch_lag_p99_ms: 58.7,
      dispatch_lag_max_ms: 58.7,
      cpu_share_of_core: 0.23,
      cpu_count: 2,
      gc_count: 0,
      gc_total_ms: 0,
      gc_max_ms: 0,
      thresholds: {
        event_loop_delay_p99_ms: 50,
        dispatch_lag_p99_ms: 50,
        cpu_share_of_core: 0.9,
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
