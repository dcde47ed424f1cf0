/**
 * The monitor behind the client self-check: one per event loop that sends or reads (the main
 * thread, each `--client-threads` thread), started just before the timed run and stopped right
 * after it. It samples the loop's delay, its busy share (event-loop utilisation), the CPU time and
 * the GC pauses. A closed loop restarts it once its first wave is released, so the judged span
 * starts after that burst. The rules are in metrics/client-health.ts.
 */
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'
import type { LoopSamples } from '../metrics/client-health.ts'
import { loopDelayPercentiles, TICK_STEP_MS } from '../metrics/loop-delay.ts'

export interface LoopMonitor {
  /**
   * Starts every figure again from here (the end of a closed loop's first wave): the stall just
   * ended is the first wave's release time, reported on its own, and is not judged twice.
   */
  restart(): void
  /** Stops sampling and returns the figures since the start (or the last restart). */
  stop(): LoopSamples
  /** Stops sampling without figures (a run that threw); harmless after `stop`. */
  dispose(): void
}

/**
 * Event-loop delay sampling interval, ms: a timer due every 2 ms records how late it fired. 2 ms
 * gives a 0.25 s run over 100 samples; each tick costs a few microseconds.
 */
export const EVENT_LOOP_RESOLUTION_MS = 2

/** Starts measuring this thread's event loop. */
export function startLoopMonitor(
  options: {
    /**
     * Report the process's CPU (every thread), not this loop's busy time: the main thread of a
     * single-thread CLI run, where the process is the client. @default isMainThread
     */
    processCpu?: boolean
  } = {},
): LoopMonitor {
  const processCpu = options.processCpu ?? isMainThread
  // Each tick's delay in 0.1 ms steps, counted: the judged figures weigh stalls against the
  // run's reading scale, which is known only at the end (metrics/loop-delay.ts).
  let delays = new Map<number, number>()
  let ticks = 0
  let lastTickMs = performance.now()
  const timer = setInterval(() => {
    const nowMs = performance.now()
    const key = Math.max(0, Math.round((nowMs - lastTickMs - EVENT_LOOP_RESOLUTION_MS) / TICK_STEP_MS))
    lastTickMs = nowMs
    ticks++
    delays.set(key, (delays.get(key) ?? 0) + 1)
  }, EVENT_LOOP_RESOLUTION_MS)
  timer.unref()
  let gcPausesMs: number[] = []
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcPausesMs.push(entry.duration)
  })
  observer.observe({ entryTypes: ['gc'] })
  let cpuStart = process.cpuUsage()
  let eluStart = performance.eventLoopUtilization()
  let startMs = performance.now()
  const dispose = (): void => {
    clearInterval(timer)
    observer.disconnect()
  }
  return {
    dispose,
    restart() {
      observer.takeRecords()
      gcPausesMs = []
      delays = new Map()
      ticks = 0
      // The next tick measures from here, not across the stall of the release.
      lastTickMs = performance.now()
      cpuStart = process.cpuUsage()
      eluStart = performance.eventLoopUtilization()
      startMs = lastTickMs
    },
    stop() {
      const spanS = (performance.now() - startMs) / 1000
      const cpu = process.cpuUsage(cpuStart)
      const utilization = performance.eventLoopUtilization(eluStart).utilization
      for (const entry of observer.takeRecords()) gcPausesMs.push(entry.duration)
      const tickDelays = [...delays].map(([key, n]) => [key * TICK_STEP_MS, n] as const)
      const samples: LoopSamples = {
        spanS,
        // Of the ticks that fired; the summary weighs stalls from tickDelays.
        eventLoopDelayMs: loopDelayPercentiles(tickDelays, Number.POSITIVE_INFINITY, 0),
        eventLoopDelaySamples: ticks,
        tickDelays,
        resolutionMs: EVENT_LOOP_RESOLUTION_MS,
        eventLoopUtilization: Number.isFinite(utilization) ? utilization : 0,
        cpuTimeMs: processCpu ? (cpu.user + cpu.system) / 1000 : utilization * spanS * 1000,
        gcPausesMs: [...gcPausesMs],
      }
      dispose()
      return samples
    },
  }
}
