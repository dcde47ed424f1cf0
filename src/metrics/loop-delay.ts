/**
 * Event-loop delay percentiles that weigh a stall as it weighs on the chunks a client reads. A
 * timer due every `resolution` ms fires late once after a stall of S ms, where chunks arriving
 * throughout the stall all wait: the ticks the stall swallowed are counted back in, each with the
 * delay it would have seen (HdrHistogram's correction for coordinated omission). But a chunk that
 * waited longer than the gap between two chunks (the reading scale) is one of several read at once,
 * whose gaps are wrong by about that gap, not by the wait: the counted-back delays are capped there.
 * So a 17 ms stall weighs little against 2 ms ITLs (one gap off by 17 ms, the others by 2) and much
 * against a 35 ms TTFT. Pure.
 */

import type { ClientHealthInput, LoopSamples } from './client-health.ts'

/** Tick delays as the monitor keeps them: `[delay ms, ticks]`, the delay in 0.1 ms steps. */
export type TickDelays = ReadonlyArray<readonly [number, number]>

/** The step tick delays are kept in, ms. */
export const TICK_STEP_MS = 0.1

/** p50, p99 and max of the ticks' delays and those counted back in, the latter capped at `capMs`. */
export function loopDelayPercentiles(
  ticks: TickDelays,
  resolutionMs: number,
  capMs: number = Number.POSITIVE_INFINITY,
): { p50: number; p99: number; max: number } {
  const counts = new Map<number, number>()
  const add = (delayMs: number, n: number): void => {
    const key = Math.round(delayMs / TICK_STEP_MS)
    counts.set(key, (counts.get(key) ?? 0) + n)
  }
  let max = 0
  for (const [delayMs, n] of ticks) {
    add(delayMs, n)
    if (n > 0 && delayMs > max) max = delayMs
    for (let d = delayMs - resolutionMs; d > 0; d -= resolutionMs) add(Math.min(d, capMs), n)
  }
  const keys = [...counts.keys()].sort((a, b) => a - b)
  let total = 0
  for (const k of keys) total += counts.get(k)!
  if (total === 0) return { p50: 0, p99: 0, max: 0 }
  // Nearest rank, as HdrHistogram reports its percentiles.
  const at = (q: number): number => {
    const rank = Math.max(1, Math.ceil((q / 100) * total))
    let seen = 0
    for (const k of keys) {
      seen += counts.get(k)!
      if (seen >= rank) return k * TICK_STEP_MS
    }
    return keys.at(-1)! * TICK_STEP_MS
  }
  return { p50: at(50), p99: at(99), max }
}

/** The input with each loop's delay figures from its ticks, the counted-back ones capped at the reading scale. */
export function withLoopDelays(input: ClientHealthInput): ClientHealthInput {
  const capMs = input.scales.readingMs
  const judged = (s: LoopSamples): LoopSamples =>
    s.tickDelays && s.resolutionMs
      ? { ...s, eventLoopDelayMs: loopDelayPercentiles(s.tickDelays, s.resolutionMs, capMs) }
      : s
  return {
    ...input,
    main: judged(input.main),
    ...(input.threads
      ? { threads: input.threads.map((t) => ('samples' in t ? { samples: judged(t.samples) } : t)) }
      : {}),
  }
}
