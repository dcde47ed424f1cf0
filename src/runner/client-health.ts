/**
 * The monitor behind the client self-check: started just before the timed run and stopped right
 * after it, it samples the event-loop delay, the process CPU time and the GC pauses; the dispatch
 * lags come from the dispatcher. The summary and its thresholds are in metrics/client-health.ts.
 */
import { availableParallelism } from 'node:os'
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import {
  type ClientHealthSummary,
  type ClientHealthThresholds,
  DEFAULT_CLIENT_HEALTH_THRESHOLDS,
  summarizeClientHealth,
} from '../metrics/client-health.ts'

export interface ClientHealthMonitor {
  /** Stops sampling and summarises the run; `dispatchLagsMs` are the requests' lags from the dispatcher. */
  stop(dispatchLagsMs: readonly number[]): ClientHealthSummary
  /** Stops sampling without a summary (a run that threw); harmless after `stop`. */
  dispose(): void
}

/**
 * Event-loop delay sampling interval, ms. Node records the time between two timer ticks, which
 * includes the interval itself; the summary reports the delay beyond it.
 */
export const EVENT_LOOP_RESOLUTION_MS = 10

/** Starts measuring the client. Cheap: one 10 ms timer in libuv and one GC observer. */
export function startClientHealthMonitor(
  thresholds: ClientHealthThresholds = DEFAULT_CLIENT_HEALTH_THRESHOLDS,
): ClientHealthMonitor {
  const histogram = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS })
  const gcPausesMs: number[] = []
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcPausesMs.push(entry.duration)
  })
  observer.observe({ entryTypes: ['gc'] })
  histogram.enable()
  const cpuStart = process.cpuUsage()
  const startMs = performance.now()
  return {
    dispose() {
      histogram.disable()
      observer.disconnect()
    },
    stop(dispatchLagsMs) {
      const durationS = (performance.now() - startMs) / 1000
      const cpu = process.cpuUsage(cpuStart)
      histogram.disable()
      // GC entries observed but not yet delivered to the callback.
      for (const entry of observer.takeRecords()) gcPausesMs.push(entry.duration)
      observer.disconnect()
      const beyond = (ns: number): number => Math.max(0, ns / 1e6 - EVENT_LOOP_RESOLUTION_MS)
      // An empty histogram (a run shorter than one interval) reports NaN and huge values.
      const sampled = histogram.count > 0
      return summarizeClientHealth(
        {
          durationS,
          eventLoopDelayMs: {
            p50: sampled ? beyond(histogram.percentile(50)) : 0,
            p99: sampled ? beyond(histogram.percentile(99)) : 0,
            max: sampled ? beyond(histogram.max) : 0,
          },
          dispatchLagsMs,
          cpuTimeMs: (cpu.user + cpu.system) / 1000,
          cpuCount: availableParallelism(),
          gcPausesMs,
        },
        thresholds,
      )
    },
  }
}
