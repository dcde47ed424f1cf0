import type { LoadConfig } from '../config/bench-config.ts'
import { pyFloatRepr } from '../metrics/py-number.ts'

/**
 * The lines Python's `benchmark` prints before the timed run: the ramp-up (`Traffic ramp-up
 * strategy: linear.` and the RPS range) or the request rate, then the burstiness and the
 * concurrency; a self-timed trace prints only that it follows the trace's timestamps.
 */
export function trafficLines(load: LoadConfig, selfTimed: boolean): string[] {
  if (selfTimed) return ['Self timing is set, using the timestamps from the trace file.']
  const lines = load.rampUp
    ? [
        `Traffic ramp-up strategy: ${load.rampUp.strategy}.`,
        `Will increase RPS from ${load.rampUp.startRps} to ${load.rampUp.endRps} RPS over the duration of the benchmark.`,
      ]
    : [`Traffic request rate: ${pyFloatRepr(load.requestRate)}`]
  const distribution = load.burstiness === 1 ? 'Poisson process' : 'Gamma distribution'
  lines.push(`Burstiness factor: ${pyFloatRepr(load.burstiness)} (${distribution})`)
  lines.push(`Maximum request concurrency: ${load.maxConcurrency ?? 'None'}`)
  return lines
}
