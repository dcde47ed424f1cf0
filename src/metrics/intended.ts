/**
 * Latency from the intended send time, against coordinated omission: in an open loop (a finite
 * `--request-rate`, a ramp-up or a trace) each request has a time the schedule meant to send it.
 * When the client or a full concurrency limit holds a request back, plain TTFT and E2EL start
 * the clock late and hide the wait; measured from the intended time they do not. Pure.
 */
import type { RequestRecord } from '../config/records.ts'
import { msStatistics } from './calculate.ts'

/** The two intended-time families, as they appear in result keys (`p99_intended_ttft_ms`). */
export type IntendedFamily = 'intended_ttft' | 'intended_e2el'

/** Seconds from the intended send time to the actual one, per record (0 without an intended time). */
export function intendedDelaysS(records: readonly RequestRecord[]): number[] {
  return records.map((r) => (r.intendedTimeS === undefined ? 0 : Math.max(0, r.startTimeS - r.intendedTimeS)))
}

/**
 * Statistics of the successful requests' latency from their intended send time, in ms: for each
 * family, mean, median, std, then each percentile, as the other statistics keys.
 * `intended_ttft` is left out for pooling runs (no token stream).
 */
export function intendedStatistics(
  records: readonly RequestRecord[],
  options: { metricPercentiles: readonly number[]; families: readonly IntendedFamily[] },
): Array<[string, number]> {
  const statistics: Array<[string, number]> = []
  const ok = records.filter((r) => r.success)
  const delays = intendedDelaysS(ok)
  for (const family of options.families) {
    const samples = ok.map((r, i) => (family === 'intended_ttft' ? r.ttftS : r.latencyS) + delays[i]!)
    statistics.push(...msStatistics(family, samples, options.metricPercentiles))
  }
  return statistics
}
