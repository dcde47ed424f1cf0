/**
 * A suite's client self-check at the scale of what its checks judge. The self-check's reading
 * limit is a quarter of the median ITL by default; a suite whose checks judge only, say, mean TTFT
 * and throughput is judged against the finest latency among those instead, so a stall that would
 * distort a 10 ms ITL but not a 35 ms TTFT does not make its rounds invalid. docs/client-health.md.
 */

import type { ReadingMetric } from '../../metrics/client-health.ts'
import { judgeAtScale } from '../../metrics/client-health-scale.ts'
import { clientHealthJson } from '../../report/result/client-keys.ts'
import type { RunOutcome } from '../../runner/run-types.ts'
import { noteStepLag } from './simulator-lag.ts'

/**
 * The reading metrics checks judge, from their labels (`p99 ITL`, `mean TPOT`, `output
 * throughput`): TPOT divides a stream's decode time; throughputs, error rates and counts depend on
 * whole requests; goodput on each request's TTFT among others.
 */
export function readingMetricsOf(checks: ReadonlyArray<{ metric: string }>): ReadingMetric[] {
  const metrics = new Set<ReadingMetric>()
  for (const { metric } of checks) {
    if (/\bITL\b/.test(metric)) metrics.add('itl')
    else if (/\bTPOT\b/.test(metric)) metrics.add('decode')
    else if (/\bTTFT\b/.test(metric) || /goodput/.test(metric)) metrics.add('ttft')
    else metrics.add('e2el')
  }
  return [...metrics]
}

/**
 * Judges a round's client again at the finest of `metrics` and rewrites its `client_health` (in
 * place, at the same key), keeping the embedded simulator's lag and its verdict.
 */
export function judgeRoundAt(outcome: RunOutcome, metrics: readonly ReadingMetric[]): void {
  const summary = outcome.clientHealth
  if (!summary || metrics.length === 0) return
  const again = judgeAtScale(summary, metrics)
  if (again === summary) return
  outcome.clientHealth = again
  const written = outcome.result.client_health as { simulator_step_lag_mean_ms?: unknown } | undefined
  const lagMs = written?.simulator_step_lag_mean_ms
  outcome.result.client_health = clientHealthJson(again)
  if (typeof lagMs === 'number') noteStepLag(outcome.result, lagMs)
}
