/**
 * The monitor behind the client self-check: started just before the timed run and stopped right
 * after it, it samples the event-loop delay, the CPU time (the process's on the main thread, the
 * thread's busy time in a worker) and the GC pauses; the dispatch
 * lags come from the dispatcher. The summary and its thresholds are in metrics/client-health.ts.
 */
import { availableParallelism } from 'node:os'
import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'
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
  options: {
    /**
     * Count this thread's busy time, not the process's CPU: set on the main thread of a run with
     * `--client-threads`, whose client threads report their own. @default false
     */
    threadCpu?: boolean
  } = {},
): ClientHealthMonitor {
  const histogram = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS })
  const gcPausesMs: number[] = []
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcPausesMs.push(entry.duration)
  })
  observer.observe({ entryTypes: ['gc'] })
  histogram.enable()
  const cpuStart = process.cpuUsage()
  const eluStart = performance.eventLoopUtilization()
  const startMs = performance.now()
  return {
    dispose() {
      histogram.disable()
      observer.disconnect()
    },
    stop(dispatchLagsMs) {
      const durationS = (performance.now() - startMs) / 1000
      const cpu = process.cpuUsage(cpuStart)
      // In a worker thread (a Vitest suite) the process also runs Vitest and the embedded
      // simulator: the share of time this thread's event loop was busy is the client's own figure.
      const cpuTimeMs =
        isMainThread && !options.threadCpu
          ? (cpu.user + cpu.system) / 1000
          : performance.eventLoopUtilization(eluStart).utilization * durationS * 1000
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
          cpuTimeMs,
          cpuCount: availableParallelism(),
          gcPausesMs,
        },
        thresholds,
      )
    },
  }
}
