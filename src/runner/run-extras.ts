import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestOutput, RequestRecord } from '../config/records.ts'
import { specDecodeDelta } from '../metrics/spec-decode.ts'
import { computeSteadyState } from '../metrics/steady-state.ts'
import { extraResultKeys, type RpsChangeEvent, steadyStateJson } from '../report/result/extra-keys.ts'
import type { ExtraResultKeys } from '../report/result/result-json.ts'
import { SERVER_METRICS_KEY } from '../report/result/server-metrics-key.ts'
import { type Probe, startProbe } from './probe.ts'
import { startThresholdProfiler } from './profile-threshold.ts'
import { callProfiler } from './profiler.ts'
import { scrapeSpecDecode } from './server-metrics.ts'
import { startServerScrape } from './server-scrape.ts'

/** What the extras need from the run they wrap. */
export interface RunExtrasContext {
  config: BenchConfig
  /** Sends one probe request (`"Hi"`, one output token), outside the concurrency limit. */
  sendProbe(signal: AbortSignal): Promise<RequestOutput>
  /** Pooling runs have no token timings for the steady-state window. */
  isPooling: boolean
  log(line: string): void
}

/** The finished run, as the extras need it. */
export interface FinishedRun {
  /** `performance.now() / 1000` just before the first arrival wait. */
  startS: number
  durationS: number
  records: readonly RequestRecord[]
  /** The schedule's rate per request, in dispatch order. */
  ratesPerS: readonly number[]
}

export interface RunExtrasOutcome {
  /** Probe, `rps_change_events` and spec-decode keys, in Python's order (for `buildResult`'s `extra`). */
  extra: ExtraResultKeys
  /** The `steady_state` value; undefined when the window does not apply (no key is written). */
  steadyState?: Record<string, unknown> | null
}

export interface RunExtras {
  finish(run: FinishedRun): Promise<RunExtrasOutcome>
}

/**
 * Everything around the timed run besides the requests: `--profile` start and stop, the `/metrics`
 * snapshots for speculative decoding, the probe loop, the ramp-up rate events and the steady-state
 * window. Call just before the dispatch starts; `finish` right after it ends.
 */
export async function startRunExtras(ctx: RunExtrasContext): Promise<RunExtras> {
  const { config, log } = ctx
  // Threshold mode (Rust): the poller starts and stops the profiler itself.
  const thresholdProfiler =
    config.profile && config.profileThreshold
      ? startThresholdProfiler(config.endpoint, config.profileThreshold, log)
      : undefined
  if (config.profile && !thresholdProfiler) {
    log('Starting profiler...')
    await callProfiler(config.endpoint, 'start', log, config.request)
  }
  const specBefore = await scrapeSpecDecode(config.endpoint, log, config.request)
  const scrape =
    config.serverMetricsIntervalS !== undefined
      ? startServerScrape(config.endpoint, config.serverMetricsIntervalS, log)
      : undefined
  const rate = config.probeRequestRatePerS
  const probe: Probe | undefined =
    rate !== undefined && rate > 0 ? startProbe(ctx.sendProbe, rate) : undefined
  return {
    async finish(run) {
      const probeSummary = await probe?.stop()
      const serverMetrics = await scrape?.stop()
      const specAfter = specBefore ? await scrapeSpecDecode(config.endpoint, log, config.request) : undefined
      if (thresholdProfiler) await thresholdProfiler.finish()
      else if (config.profile) {
        log('Stopping profiler...')
        await callProfiler(config.endpoint, 'stop', log, config.request)
      }
      const specDecode = specDecodeDelta(specBefore, specAfter)
      const extra = extraResultKeys({
        ...(probeSummary ? { probe: probeSummary } : {}),
        ...(config.load.rampUp ? { rpsChangeEvents: rpsChangeEvents(config, run) } : {}),
        ...(specDecode ? { specDecode } : {}),
      })
      const outcome: RunExtrasOutcome = {
        extra: serverMetrics ? [...extra, [SERVER_METRICS_KEY, serverMetrics] as const] : extra,
      }
      const target = config.load.maxConcurrency
      // Rust's gate: a closed loop (a concurrency cap, every request ready at t=0).
      if (
        config.steadyState &&
        target !== undefined &&
        !Number.isFinite(config.load.requestRate) &&
        !config.load.rampUp
      ) {
        outcome.steadyState = steadyStateJson(
          computeSteadyState(run.records, {
            targetConcurrency: target,
            ...config.steadyState,
            totalDurationS: run.durationS,
            percentiles: config.metricPercentiles,
            isPooling: ctx.isPooling,
          }),
        )
      }
      return outcome
    },
  }
}

/**
 * Python's `rps_change_events`: the ramp's start rate at the run start, then one entry for every
 * integer rate passed, stamped when the request that reached it was released.
 */
export function rpsChangeEvents(config: BenchConfig, run: FinishedRun): RpsChangeEvent[] {
  const ramp = config.load.rampUp
  if (!ramp) return []
  let last = Math.trunc(ramp.startRps)
  const events: RpsChangeEvent[] = [{ rps: last, timestamp: isoLocal(run.startS) }]
  run.records.forEach((record, i) => {
    const current = Math.trunc(run.ratesPerS[i] ?? 0)
    for (let rps = last + 1; rps <= current; rps++)
      events.push({ rps, timestamp: isoLocal(record.arrivalTimeS) })
    if (current > last) last = current
  })
  return events
}

/** Python `datetime.now().isoformat()` for a monotonic time: local, no zone, microseconds when non-zero. */
export function isoLocal(monotonicS: number): string {
  const epochMs = performance.timeOrigin + monotonicS * 1000
  const date = new Date(Math.floor(epochMs))
  const micro = Math.floor((epochMs - Math.floor(epochMs / 1000) * 1000) * 1000)
  const p = (n: number, w = 2): string => String(n).padStart(w, '0')
  const base = `${p(date.getFullYear(), 4)}-${p(date.getMonth() + 1)}-${p(date.getDate())}T${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`
  return micro > 0 ? `${base}.${p(micro, 6)}` : base
}
