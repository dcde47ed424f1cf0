/**
 * The servebench keys about the client side of a run, written after the Python keys and
 * `steady_state`: the statistics of latency from the intended send time (open loops only), their
 * per-request `intended_delays`, and the `client_health` self-check; plus the self-check's console
 * line. Pure. See docs/client-health.md.
 */
import { type ClientHealthSummary, formatMs, formatShare } from '../../metrics/client-health.ts'
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

/** The `client_health` object: the summary with snake_case keys. */
export function clientHealthJson(s: ClientHealthSummary): Record<string, unknown> {
  return {
    saturated: s.saturated,
    reasons: [...s.reasons],
    duration_s: s.durationS,
    event_loop_delay_p50_ms: s.eventLoopDelayP50Ms,
    event_loop_delay_p99_ms: s.eventLoopDelayP99Ms,
    event_loop_delay_max_ms: s.eventLoopDelayMaxMs,
    dispatch_lag_p50_ms: s.dispatchLagP50Ms,
    dispatch_lag_p99_ms: s.dispatchLagP99Ms,
    dispatch_lag_max_ms: s.dispatchLagMaxMs,
    cpu_share_of_core: s.cpuShareOfCore,
    cpu_count: s.cpuCount,
    ...(s.clientThreads !== undefined ? { client_threads: s.clientThreads } : {}),
    ...(s.httpTransport !== undefined ? { http_transport: s.httpTransport } : {}),
    gc_count: s.gcCount,
    gc_total_ms: s.gcTotalMs,
    gc_max_ms: s.gcMaxMs,
    thresholds: {
      event_loop_delay_p99_ms: s.thresholds.eventLoopDelayP99Ms,
      dispatch_lag_p99_ms: s.thresholds.dispatchLagP99Ms,
      cpu_share_of_core: s.thresholds.cpuShareOfCore,
      gc_max_ms: s.thresholds.gcMaxMs,
    },
    ...(s.threads ? { threads: s.threads.map(clientHealthJson) } : {}),
  }
}

/**
 * The console line printed after the result table:
 * `Client self-check: ok — event-loop delay p99 1.2 ms, dispatch lag p99 0.4 ms, CPU 23% of a core, GC 12 ms`,
 * or `Client self-check: SATURATED — ` and the reasons, `; `-separated.
 */
export function formatClientHealthLine(s: ClientHealthSummary): string {
  if (s.saturated) return `Client self-check: SATURATED — ${s.reasons.join('; ')}\n`
  const figures = [
    `event-loop delay p99 ${formatMs(s.eventLoopDelayP99Ms)}`,
    `dispatch lag p99 ${formatMs(s.dispatchLagP99Ms)}`,
    `CPU ${formatShare(s.cpuShareOfCore)} of a core`,
    `GC ${formatMs(s.gcTotalMs)}`,
  ]
  return `Client self-check: ok — ${figures.join(', ')}\n`
}
