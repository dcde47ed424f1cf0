/**
 * The timed run's sending, around `dispatch()`: this process's share of the schedule
 * (`--segment`), the wait for `--start-at`, the requests sent from this thread or by client
 * threads that each own a share of it (`--client-threads`), and the self-check of every thread.
 * It is the seam where measure.ts hands over the schedule and gets back per-request outputs.
 */

import { availableParallelism } from 'node:os'
import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestOutput } from '../config/records.ts'
import {
  type ClientHealthSummary,
  type DispatchTiming,
  summarizeClientHealth,
  type ThreadReport,
} from '../metrics/client-health.ts'
import { latencyScales } from '../metrics/client-health-scale.ts'
import { type LoopMonitor, startLoopMonitor } from './client-health.ts'
import {
  DEFAULT_DRAIN_MS,
  type DispatchItem,
  type DispatchOptions,
  type DispatchOutcome,
  dispatch,
} from './dispatcher.ts'
import type { RetryStats } from './retry.ts'
import { segmentConcurrency, segmentShare, waitForStartAt } from './segments.ts'
import { autoClientThreads, type OfferedLoad } from './threads/auto-threads.ts'
import { type ClientThreads, startClientThreads } from './threads/client-threads.ts'
import type { PortableRequest } from './threads/messages.ts'
import { sendFromThreads } from './threads/send-from-threads.ts'

/** What the timed run sent and measured. */
export interface SentSchedule {
  outcome: DispatchOutcome
  /** Each result's index in the whole schedule (its segment's share only with `--segment`). */
  scheduleIndexes: number[]
  clientHealth?: ClientHealthSummary
  /** `Date.now()` when the dispatch started (`outcome.startS` on the monotonic clock). */
  startEpochMs: number
  /** The threads that sent: 1 from this thread, else the client threads given a share. */
  clientThreads: number
}

/**
 * How many threads send the timed run: `--client-threads N`, or for `auto` (the default)
 * {@link autoClientThreads} of `load`; 1 in the modes that run several measured runs or
 * conversations (sweeps, `--num-runs`, `--multi-turn`), which send from this thread.
 */
export function clientThreadCount(config: BenchConfig, load: OfferedLoad): number {
  if (typeof config.clientThreads === 'number') return config.clientThreads
  const several = config.sweep !== undefined || config.numRuns > 1 || config.multiTurn !== undefined
  return several ? 1 : autoClientThreads(load)
}

/**
 * Starts the client threads of the run (`--client-threads`, `auto` resolved against `load`, this
 * process's share of it); undefined for one thread. They start before the timed run: each loads
 * the backend code once.
 */
export async function openClientThreads(
  config: BenchConfig,
  options: { connections: number; retries: RetryStats; load: OfferedLoad; signal?: AbortSignal },
): Promise<ClientThreads | undefined> {
  const count = clientThreadCount(config, options.load)
  if (count <= 1 || options.signal?.aborted) return undefined
  return startClientThreads({
    threads: count,
    backend: config.endpoint.backend,
    connections: options.connections,
    insecure: config.endpoint.insecure,
    httpTransport: config.endpoint.httpTransport,
    maxRetries: config.request.maxRetries,
    retries: options.retries,
  })
}

/**
 * Sends the schedule (`items`, every request of it, each payload with its schedule `index`): the
 * segment's share, after `--start-at`, behind the FIFO limit (the segment's share of
 * `--max-concurrency`), from this thread (`send.here`) or, given `threads`, by the client threads,
 * each its own share of it with its slots of the limit (each payload made portable by `portable`).
 */
export async function sendSchedule<P extends { index: number }>(
  config: BenchConfig,
  items: ReadonlyArray<DispatchItem<P>>,
  send: {
    threads: ClientThreads | undefined
    portable(payload: P): PortableRequest
    here(payload: P, signal: AbortSignal): Promise<RequestOutput>
    /** The text a recorded error keeps (secrets masked). */
    redact(error: string): string
    /** The threads' retries are added here. */
    retries: RetryStats
  },
  options: Omit<DispatchOptions, 'maxConcurrency' | 'onRequestEnd' | 'startS'> & {
    /** After each request of this process's share; `total` is the share's size. */
    onShareEnd?(done: number, total: number, ended: { output: RequestOutput; inFlight: number }): void
  },
): Promise<SentSchedule> {
  const { threads } = send
  const share = segmentShare(items, config.segment)
  // Client threads are armed first and started at --start-at themselves.
  if (config.startAtEpochMs !== undefined && !threads)
    await waitForStartAt(config.startAtEpochMs, options.signal)
  const maxConcurrency = config.load.maxConcurrency
    ? segmentConcurrency(config.load.maxConcurrency, config.segment)
    : undefined
  const { onShareEnd, ...dispatchOptions } = options
  const onRequestEnd = (done: number, ended: { output: RequestOutput; inFlight: number }): void =>
    onShareEnd?.(done, share.length, ended)
  let monitor: LoopMonitor | undefined
  try {
    // With client threads the process's CPU is theirs too: the main thread reports its own loop.
    monitor =
      config.clientCheck === 'off' ? undefined : startLoopMonitor({ processCpu: threads === undefined })
    const closedLoop = options.closedLoop === true
    let outcome: DispatchOutcome
    let startEpochMs: number
    // The self-check's evidence beside the main thread's loop: the threads' loops, and lateness.
    let threadReports: ThreadReport[] | undefined
    let lateness: Omit<DispatchTiming, 'loop'> = { latenessMs: [] }
    let clientThreads = 1
    if (threads) {
      const sent = await sendFromThreads(threads, share, {
        portable: send.portable,
        redact: send.redact,
        ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
        clientCheck: monitor !== undefined,
        closedLoop,
        drainMs: options.drainMs ?? DEFAULT_DRAIN_MS,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.forceSignal ? { forceSignal: options.forceSignal } : {}),
        ...(config.startAtEpochMs !== undefined ? { startAtEpochMs: config.startAtEpochMs } : {}),
        onRequestEnd,
      })
      outcome = sent.outcome
      startEpochMs = sent.startEpochMs
      clientThreads = sent.threads
      send.retries.retries += sent.retries.retries
      send.retries.retriedRequests += sent.retries.retriedRequests
      send.retries.recovered += sent.retries.recovered
      if (sent.health) {
        threadReports = sent.health.threads
        lateness = sent.health.lateness
      }
    } else {
      startEpochMs = Date.now()
      outcome = await dispatch(
        share,
        (payload, signal) =>
          send.here(payload, signal).then((output) => {
            output.error = send.redact(output.error)
            return output
          }),
        {
          ...dispatchOptions,
          ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
          onRequestEnd,
          // The first wave is timed on its own; the loop is judged after it.
          onFirstWave: () => monitor?.restart(),
        },
      )
      lateness = {
        latenessMs: outcome.latenessMs.filter((ms) => !Number.isNaN(ms)),
        ...(outcome.firstWave ? { firstWave: outcome.firstWave } : {}),
      }
    }
    // With client threads, the main thread only starts, stops and merges: its loop is judged
    // beside theirs, and the dispatch lateness is the threads' together.
    const main = monitor?.stop()
    const clientHealth: ClientHealthSummary | undefined =
      main &&
      summarizeClientHealth({
        main,
        ...(threadReports ? { threads: threadReports } : {}),
        dispatch: { loop: closedLoop ? 'closed' : 'open', ...lateness },
        scales: latencyScales(outcome.results),
        succeeded: outcome.results.filter((r) => r.success).length,
        cpuCount: availableParallelism(),
      })
    return {
      outcome,
      scheduleIndexes: outcome.results.map((r) => share[r.index]!.payload.index),
      ...(clientHealth ? { clientHealth } : {}),
      startEpochMs,
      clientThreads,
    }
  } finally {
    monitor?.dispose()
  }
}
