import { setTimeout as sleep } from 'node:timers/promises'
import type { ProfileThresholdConfig, ResolvedEndpoint } from '../config/bench-config.ts'
import { callProfiler } from './profiler.ts'
import { scrapeMetricsText } from './server-metrics.ts'

/** How often `/metrics` is polled for the running-request gauge (Rust). */
export const PROFILE_POLL_MS = 500

const GAUGE = 'vllm:num_requests_running'

/**
 * The value of the first `vllm:num_requests_running` sample line (the text after its last space),
 * or undefined when there is none or it is not a number. Rust reads the gauge the same way.
 */
export function readRunningRequests(metricsText: string): number | undefined {
  for (const line of metricsText.split('\n')) {
    if (!line.startsWith(GAUGE)) continue
    const value = Number(line.slice(line.lastIndexOf(' ') + 1))
    return Number.isFinite(value) ? value : undefined
  }
  return undefined
}

/** A threshold profiler started beside a run. */
export interface ThresholdProfiler {
  /** Call when the run ends: stops a capture in progress, or reports that none started. */
  finish(): Promise<void>
}

/**
 * `--profile --profile-batch-threshold N`: polls `/metrics` every {@link PROFILE_POLL_MS} ms; once
 * `vllm:num_requests_running >= N`, POSTs `/start_profile`, waits `--profile-duration` seconds (or
 * until the run ends), then POSTs `/stop_profile`. A run that ends first takes no profile and
 * says so. Rust: the threshold mode of `benchmark.rs`.
 */
export function startThresholdProfiler(
  endpoint: ResolvedEndpoint,
  threshold: ProfileThresholdConfig,
  log: (line: string) => void,
  pollMs = PROFILE_POLL_MS,
): ThresholdProfiler {
  const runEnded = new AbortController()
  let peak = 0
  let started = false
  const wait = async (ms: number): Promise<void> => {
    try {
      await sleep(ms, undefined, { signal: runEnded.signal })
    } catch {
      // The run ended: the loop checks the signal.
    }
  }
  const loop = (async (): Promise<void> => {
    while (!runEnded.signal.aborted) {
      const text = await scrapeMetricsText(endpoint)
      const running = text === undefined ? undefined : readRunningRequests(text)
      if (running !== undefined) peak = Math.max(peak, running)
      if (running !== undefined && running >= threshold.runningRequests && !runEnded.signal.aborted) {
        log(`${GAUGE} reached ${running} (threshold ${threshold.runningRequests}); starting profiler...`)
        started = true
        await callProfiler(endpoint, 'start', log)
        await wait(threshold.durationS * 1000)
        log('Stopping profiler...')
        await callProfiler(endpoint, 'stop', log)
        return
      }
      await wait(pollMs)
    }
  })()
  return {
    async finish() {
      runEnded.abort()
      await loop
      if (!started) {
        log(
          `servebench: WARNING: --profile-batch-threshold ${threshold.runningRequests} was never reached (at most ${peak} requests running); no profile was taken`,
        )
      }
    },
  }
}
