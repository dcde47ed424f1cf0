/**
 * The client's self-check: whether the benchmark client itself was the bottleneck of a run (an
 * event loop too busy to read chunks on time, requests sent late, a pegged CPU, long GC pauses),
 * so that a verdict does not blame the server for the client's own saturation. Pure: the monitor
 * in runner/client-health.ts gathers the raw figures, this turns them into a summary and reasons.
 * See docs/client-health.md.
 */
import type { ResolvedHttpTransport } from '../config/bench-config.ts'
import { percentile } from './percentile.ts'

/** The raw figures of one timed run, as the monitor measured them. */
export interface ClientHealthSamples {
  /** Wall time the monitor ran, seconds. */
  durationS: number
  /** Event-loop delay beyond the sampling interval: p50, p99 and max, ms (perf_hooks `monitorEventLoopDelay`). */
  eventLoopDelayMs: { p50: number; p99: number; max: number }
  /** Per request: when it was released minus when the schedule said to send it, ms. */
  dispatchLagsMs: readonly number[]
  /** Process CPU time (user + system, every thread) during the run, ms (`process.cpuUsage`). */
  cpuTimeMs: number
  /** CPU cores the process may use (`os.availableParallelism()`). */
  cpuCount: number
  /** Each garbage-collection pause, ms (PerformanceObserver `gc` entries). */
  gcPausesMs: readonly number[]
}

/**
 * Limits above which a run's client counts as saturated. Each sits above what a healthy run showed
 * on a loaded 2-core machine (load average 6–9: event-loop delay p99 3–45 ms, dispatch lag p99
 * 3–40 ms, GC pauses up to 29 ms) and below what a starved client showed there (its thread
 * blocked 60 ms of every 100 ms: event-loop delay p99 61–156 ms, dispatch lag p99 59–106 ms).
 * docs/client-health.md has the measurements.
 */
export interface ClientHealthThresholds {
  /**
   * Event-loop delay p99, ms: past this, chunks waited in the socket before the client stamped
   * them, so TTFT and ITL include the client's own delay.
   * @default 50
   */
  eventLoopDelayP99Ms: number
  /**
   * Dispatch lag p99, ms: past this, requests left later than the schedule asked, so the offered
   * load was lower than configured.
   * @default 50
   */
  dispatchLagP99Ms: number
  /**
   * Process CPU as a share of one core (1 = one core busy the whole run). The client's requests
   * run on one thread, so near 1 it has no headroom left.
   * @default 0.9
   */
  cpuShareOfCore: number
  /**
   * The longest garbage-collection pause, ms: a pause stops every timer and stream read at once.
   * @default 100
   */
  gcMaxMs: number
}

/** The self-check of one run: its figures, and whether (and why) the client was saturated. */
export interface ClientHealthSummary {
  /** True when any figure passed its threshold: the run's latencies measure the client, not the server. */
  saturated: boolean
  /** One sentence per threshold passed, as users read it; empty when not saturated. */
  reasons: string[]
  durationS: number
  eventLoopDelayP50Ms: number
  eventLoopDelayP99Ms: number
  eventLoopDelayMaxMs: number
  dispatchLagP50Ms: number
  dispatchLagP99Ms: number
  dispatchLagMaxMs: number
  /** Process CPU time over wall time: 0.25 is a quarter of one core; above 1 uses several threads. */
  cpuShareOfCore: number
  cpuCount: number
  gcCount: number
  gcTotalMs: number
  gcMaxMs: number
  /** The limits the run was checked against. */
  thresholds: ClientHealthThresholds
  /** What carried the run's streamed requests (`--http-transport`, `auto` resolved); set by the runner. */
  httpTransport?: ResolvedHttpTransport
  /** The threads that sent the requests (`--client-threads`, `auto` resolved); set by the runner. */
  clientThreads?: number
  /**
   * `--client-threads N` (N > 1): each client thread's own self-check, in thread order; the figures
   * above are then the main thread's (dispatch), and `saturated` holds when any thread was.
   */
  threads?: ClientHealthSummary[]
}

export const DEFAULT_CLIENT_HEALTH_THRESHOLDS: Readonly<ClientHealthThresholds> = Object.freeze({
  eventLoopDelayP99Ms: 50,
  dispatchLagP99Ms: 50,
  cpuShareOfCore: 0.9,
  gcMaxMs: 100,
})

/** Summarises a run's raw figures against the thresholds (defaults: {@link DEFAULT_CLIENT_HEALTH_THRESHOLDS}). */
export function summarizeClientHealth(
  samples: ClientHealthSamples,
  thresholds: ClientHealthThresholds = DEFAULT_CLIENT_HEALTH_THRESHOLDS,
): ClientHealthSummary {
  const lags = samples.dispatchLagsMs.map((ms) => Math.max(0, ms))
  const cpuShareOfCore = samples.durationS > 0 ? samples.cpuTimeMs / 1000 / samples.durationS : 0
  const gcTotalMs = samples.gcPausesMs.reduce((a, b) => a + b, 0)
  const summary: ClientHealthSummary = {
    saturated: false,
    reasons: [],
    durationS: samples.durationS,
    eventLoopDelayP50Ms: samples.eventLoopDelayMs.p50,
    eventLoopDelayP99Ms: samples.eventLoopDelayMs.p99,
    eventLoopDelayMaxMs: samples.eventLoopDelayMs.max,
    dispatchLagP50Ms: percentile(lags, 50),
    dispatchLagP99Ms: percentile(lags, 99),
    dispatchLagMaxMs: lags.length > 0 ? Math.max(...lags) : 0,
    cpuShareOfCore,
    cpuCount: samples.cpuCount,
    gcCount: samples.gcPausesMs.length,
    gcTotalMs,
    gcMaxMs: samples.gcPausesMs.length > 0 ? Math.max(...samples.gcPausesMs) : 0,
    thresholds: { ...thresholds },
  }
  summary.reasons = saturationReasons(summary, thresholds)
  summary.saturated = summary.reasons.length > 0
  return summary
}

/** One reason per threshold the summary passed, in a fixed order. */
export function saturationReasons(
  s: Omit<ClientHealthSummary, 'saturated' | 'reasons' | 'thresholds'>,
  t: ClientHealthThresholds,
): string[] {
  const reasons: string[] = []
  if (s.eventLoopDelayP99Ms > t.eventLoopDelayP99Ms) {
    reasons.push(
      `event-loop delay p99 ${formatMs(s.eventLoopDelayP99Ms)} (limit ${formatMs(t.eventLoopDelayP99Ms)}): the client, not the server, set these latencies`,
    )
  }
  if (s.dispatchLagP99Ms > t.dispatchLagP99Ms) {
    reasons.push(
      `dispatch lag p99 ${formatMs(s.dispatchLagP99Ms)} (limit ${formatMs(t.dispatchLagP99Ms)}): requests left later than scheduled, so the server got less load than asked`,
    )
  }
  if (s.cpuShareOfCore > t.cpuShareOfCore) {
    reasons.push(
      `CPU ${formatShare(s.cpuShareOfCore)} of a core (limit ${formatShare(t.cpuShareOfCore)}): the client had no time to spare for reading responses`,
    )
  }
  if (s.gcMaxMs > t.gcMaxMs) {
    reasons.push(
      `GC pause ${formatMs(s.gcMaxMs)} (limit ${formatMs(t.gcMaxMs)}): garbage collection stopped the client mid-run`,
    )
  }
  return reasons
}

/** `0.42` → `0.4 ms`, `38` → `38 ms`, `120.4` → `120 ms`: one decimal below 100 ms. */
export function formatMs(ms: number): string {
  return `${ms >= 100 || Number.isInteger(ms) ? Math.round(ms) : ms.toFixed(1)} ms`
}

/** `0.234` → `23%`. */
export function formatShare(share: number): string {
  return `${Math.round(share * 100)}%`
}

/**
 * The self-check of a run sent from client threads: the main thread's summary (its dispatch lags
 * and event loop), each thread's beside it, saturated when any is, with each thread's reasons
 * prefixed by its index.
 */
export function withThreadHealth(
  main: ClientHealthSummary,
  threads: readonly ClientHealthSummary[],
): ClientHealthSummary {
  const reasons = [
    ...main.reasons.map((r) => `main thread: ${r}`),
    ...threads.flatMap((t, i) => t.reasons.map((r) => `client thread ${i}: ${r}`)),
  ]
  return { ...main, saturated: reasons.length > 0, reasons, threads: [...threads] }
}
