/**
 * `--client-threads auto` (the default): how many client threads a run gets, from the cores the
 * machine lends and the load the run offers, so a light load or a small machine keeps one thread
 * and a heavy one spreads over cores. The rule (docs/scaling-the-client.md):
 *
 *   events/s = min(streams × 50, rate × events per request)
 *   threads  = ceil(events/s / 16,000), at most cores − 1 and at most the streams; 1 on ≤ 2 cores
 *
 * where `streams` is the most requests in flight (`--max-concurrency`, else every request) and a
 * stream is assumed to deliver 50 events per second (20 ms between tokens, a typical decode speed).
 */
import { availableParallelism } from 'node:os'

/**
 * Streamed events a client thread is given per second: about 40% of what one thread reads at most
 * (35,000–40,000 events per CPU-second on the lean transport, docs/scaling-the-client.md), so its
 * event loop keeps the headroom that timing the chunks on arrival needs.
 */
export const EVENTS_PER_THREAD_S = 16_000

/** What a stream is assumed to deliver per second: 20 ms between tokens. */
export const ASSUMED_EVENTS_PER_STREAM_S = 50

/** The most threads `auto` chooses, as `--client-threads` accepts (config/resolve-client-flags.ts). */
const MAX_AUTO_THREADS = 64

/** The load a run (this process's share of it, with `--segment`) offers its client. */
export interface OfferedLoad {
  /** Requests to send. */
  requests: number
  /** `--max-concurrency` (this process's slots); absent when unbounded. */
  maxConcurrency?: number
  /** The schedule's mean request rate, per second: `Infinity` at `--request-rate inf`. */
  requestRatePerS: number
  /** Streamed events per request: its expected output tokens; 1 for a response that is not streamed. */
  eventsPerRequest: number
}

/** The streamed events per second the run asks its client to read, by the rule above. */
export function offeredEventsPerS(load: OfferedLoad): number {
  const streams = Math.min(load.requests, load.maxConcurrency ?? Number.POSITIVE_INFINITY)
  return Math.min(streams * ASSUMED_EVENTS_PER_STREAM_S, load.requestRatePerS * load.eventsPerRequest)
}

/** `auto`'s thread count for `load` on a machine that lends `cores` cores. */
export function autoClientThreads(load: OfferedLoad, cores: number = availableParallelism()): number {
  // One core is kept for the main thread and whatever shares the machine (an embedded simulator).
  const spare = cores - 1
  if (spare <= 1) return 1
  const streams = Math.min(load.requests, load.maxConcurrency ?? Number.POSITIVE_INFINITY)
  const wanted = Math.ceil(offeredEventsPerS(load) / EVENTS_PER_THREAD_S)
  return Math.max(1, Math.min(wanted, spare, streams, MAX_AUTO_THREADS))
}

/**
 * The load of a schedule: `offsetsS` of the requests to send, their expected output lengths and
 * whether they stream.
 */
export function loadOfSchedule(
  offsetsS: readonly number[],
  outputLens: readonly number[],
  options: { maxConcurrency?: number; streamed: boolean },
): OfferedLoad {
  let spanS = 0
  for (const offset of offsetsS) spanS = Math.max(spanS, offset)
  let tokens = 0
  for (const len of outputLens) tokens += len
  return {
    requests: offsetsS.length,
    ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
    requestRatePerS: spanS > 0 ? offsetsS.length / spanS : Number.POSITIVE_INFINITY,
    eventsPerRequest: options.streamed && outputLens.length > 0 ? Math.max(1, tokens / outputLens.length) : 1,
  }
}
