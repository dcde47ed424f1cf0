/**
 * The servebench keys about the client side of a run, written after the Python keys and
 * `steady_state`: the statistics of latency from the intended send time (open loops only), their
 * per-request `intended_delays`, and the `client_health` self-check; plus the self-check's console
 * line. Pure. See docs/client-health.md.
 */
import type { ClientHealthSummary } from '../../metrics/client-health.ts'
import { formatClientHealthLine } from '../../metrics/client-health-text.ts'
import type { ExtraResultKeys } from './result-json.ts'

/** What the run measured about its client; each part absent when it does not apply. */
export interface ClientKeysInput {
  /** Open loops only: `mean_intended_ttft_ms`, … in order, and the per-request delays, seconds. */
  intended?: { statistics: ReadonlyArray<readonly [string, number]>; delaysS: readonly number[] }
  /** Absent with `--client-check off`. */
  clientHealth?: ClientHealthSummary
}

/** The keys in result order: intended statistics, `intended_delays`, `client_health`. */
export function clientResultKeys(input: ClientKeysInput): ExtraResultKeys {
  const keys: Array<readonly [string, unknown]> = []
  if (input.intended) {
    keys.push(...input.intended.statistics)
    keys.push(['intended_delays', [...input.intended.delaysS]])
  }
  if (input.clientHealth) keys.push(['client_health', clientHealthJson(input.clientHealth)])
  return keys
}

/** The `client_health` object: the summary with snake_case keys (docs/client-health.md). */
export function clientHealthJson(s: ClientHealthSummary): Record<string, unknown> {
  return {
    state: s.state,
    saturated: s.saturated,
    reasons: [...s.reasons],
    ...(s.remedy !== undefined ? { remedy: s.remedy } : {}),
    unjudged: [...s.unjudged],
    loop: s.loop,
    duration_s: s.durationS,
    event_loop_delay_p50_ms: s.eventLoopDelayP50Ms,
    event_loop_delay_p99_ms: s.eventLoopDelayP99Ms,
    event_loop_delay_max_ms: s.eventLoopDelayMaxMs,
    event_loop_delay_samples: s.eventLoopDelaySamples,
    event_loop_utilization: s.eventLoopUtilization,
    dispatch_lag_p50_ms: s.dispatchLagP50Ms,
    dispatch_lag_p99_ms: s.dispatchLagP99Ms,
    dispatch_lag_max_ms: s.dispatchLagMaxMs,
    dispatch_lag_samples: s.dispatchLagSamples,
    ...(s.firstWaveRequests !== undefined ? { first_wave_requests: s.firstWaveRequests } : {}),
    ...(s.firstWaveReleaseMs !== undefined ? { first_wave_release_ms: s.firstWaveReleaseMs } : {}),
    cpu_share_of_core: s.cpuShareOfCore,
    cpu_count: s.cpuCount,
    ...(s.clientThreads !== undefined ? { client_threads: s.clientThreads } : {}),
    ...(s.httpTransport !== undefined ? { http_transport: s.httpTransport } : {}),
    gc_count: s.gcCount,
    gc_total_ms: s.gcTotalMs,
    gc_max_ms: s.gcMaxMs,
    latency_scale: {
      ...(s.scales.readingMs !== undefined ? { reading_ms: s.scales.readingMs } : {}),
      ...(s.scales.readingMetric !== undefined ? { reading_metric: s.scales.readingMetric } : {}),
      ...(s.scales.sendingMs !== undefined ? { sending_ms: s.scales.sendingMs } : {}),
    },
    thresholds: {
      event_loop_delay_p99_ms: s.thresholds.eventLoopDelayP99Ms,
      dispatch_lag_p99_ms: s.thresholds.dispatchLagP99Ms,
      event_loop_utilization: s.thresholds.eventLoopUtilization,
      gc_max_ms: s.thresholds.gcMaxMs,
    },
    ...(s.threads ? { threads: s.threads.map(clientHealthJson) } : {}),
  }
}

export { formatClientHealthLine }
