/**
 * The counters of a running simulator (`SimServer.stats()`), and how the engines of a
 * data-parallel simulator add up to one: counts and gauges sum, the step lag is the worst engine's
 * maximum and the mean over every engine's steps.
 */
import type { StepLagStats } from './step-clock.ts'

/** Counters of a running simulator. */
export interface SimStats {
  requestsReceived: number
  requestsFinished: number
  /** Requests whose client went away before the last token. */
  requestsAborted: number
  /** Generation requests by the `model` field they sent; the simulator answers any name. */
  requestsByModel: Record<string, number>
  /** Sequences running now (`vllm:num_requests_running`). */
  running: number
  /** Sequences waiting for a slot (`vllm:num_requests_waiting`). */
  waiting: number
  promptTokensTotal: number
  generationTokensTotal: number
  /** How late engine steps ran (also `servebench_sim_step_lag_seconds` on `/metrics`). */
  stepLag: StepLagStats
}

/** The stats of several engines as one simulator's. */
export function combineStats(engines: readonly SimStats[]): SimStats {
  const total: SimStats = {
    requestsReceived: 0,
    requestsFinished: 0,
    requestsAborted: 0,
    requestsByModel: {},
    running: 0,
    waiting: 0,
    promptTokensTotal: 0,
    generationTokensTotal: 0,
    stepLag: { steps: 0, maxMs: 0, meanMs: 0, recentMeanMs: 0 },
  }
  let lagSumMs = 0
  for (const s of engines) {
    total.requestsReceived += s.requestsReceived
    total.requestsFinished += s.requestsFinished
    total.requestsAborted += s.requestsAborted
    for (const [model, n] of Object.entries(s.requestsByModel))
      total.requestsByModel[model] = (total.requestsByModel[model] ?? 0) + n
    total.running += s.running
    total.waiting += s.waiting
    total.promptTokensTotal += s.promptTokensTotal
    total.generationTokensTotal += s.generationTokensTotal
    total.stepLag.steps += s.stepLag.steps
    total.stepLag.maxMs = Math.max(total.stepLag.maxMs, s.stepLag.maxMs)
    total.stepLag.recentMeanMs = Math.max(total.stepLag.recentMeanMs, s.stepLag.recentMeanMs)
    lagSumMs += s.stepLag.meanMs * s.stepLag.steps
  }
  if (total.stepLag.steps > 0) total.stepLag.meanMs = lagSumMs / total.stepLag.steps
  return total
}
