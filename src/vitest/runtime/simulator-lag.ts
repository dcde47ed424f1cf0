import { request } from 'undici'
import { parsePrometheusText } from '../../metrics/prometheus.ts'
import { AUX_BODY_LIMITS, readTextCapped } from '../../response-body.ts'

/**
 * The embedded simulator's lateness during a run. The simulator shares the machine with the
 * client, so a busy machine delays its engine steps and the server under test slows down for a
 * reason that has nothing to do with it. Read from its `/metrics` before and after each round.
 */

/**
 * Mean step lag, ms, past which the simulator's lateness is the machine's doing: a fifth of its
 * default 10 ms step. A process busy-looping on one of two cores gives about 1 ms.
 */
export const SIMULATOR_STEP_LAG_LIMIT_MS = 2

export interface StepLagReading {
  sumS: number
  count: number
}

/** The cumulative step lag of the simulator at `baseUrl`; undefined when it cannot be read. */
export async function readStepLag(baseUrl: string): Promise<StepLagReading | undefined> {
  try {
    const response = await request(`${baseUrl}/metrics`, { headersTimeout: 5_000, bodyTimeout: 5_000 })
    if (response.statusCode !== 200) {
      await response.body.dump()
      return undefined
    }
    const { samples } = parsePrometheusText(
      await readTextCapped(response.body, AUX_BODY_LIMITS.metricsBytes, 'GET /metrics'),
    )
    const stat = (name: string): number | undefined =>
      samples.find((s) => s.name === 'servebench_sim_step_lag_seconds' && s.labels.stat === name)?.value
    const sumS = stat('sum')
    const count = stat('count')
    return sumS !== undefined && count !== undefined ? { sumS, count } : undefined
  } catch {
    return undefined
  }
}

/** The mean lag of the steps between two readings, ms; undefined when no step ran. */
export function meanStepLagMs(before: StepLagReading, after: StepLagReading): number | undefined {
  const steps = after.count - before.count
  return steps > 0 ? ((after.sumS - before.sumS) / steps) * 1000 : undefined
}

/**
 * Adds the simulator's mean step lag to a result's `client_health` and, past the limit, marks the
 * run saturated with the reason: the self-check covers everything on this machine that measures.
 */
export function noteStepLag(result: Record<string, unknown>, lagMs: number): void {
  const health = result.client_health as
    | { state?: string; saturated?: boolean; reasons?: string[]; remedy?: string }
    | undefined
  if (!health) return
  Object.assign(health, { simulator_step_lag_mean_ms: lagMs })
  // A run with no successful request has nothing the lag could have distorted.
  if (lagMs <= SIMULATOR_STEP_LAG_LIMIT_MS || health.state === 'no-data') return
  health.state = 'saturated'
  health.saturated = true
  health.remedy = health.remedy ? `${health.remedy}, or a quieter machine` : 'a quieter machine'
  health.reasons = [
    ...(health.reasons ?? []),
    `embedded simulator steps ${lagMs.toFixed(1)} ms late on average (limit ${SIMULATOR_STEP_LAG_LIMIT_MS} ms): this machine, not the server, set these latencies`,
  ]
}
