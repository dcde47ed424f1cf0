/**
 * The timed run's sending, around `dispatch()`: this process's share of the schedule
 * (`--segment`), the wait for `--start-at`, the requests sent from client threads
 * (`--client-threads`) or from this thread, and the self-check of every thread. It is the seam
 * where run-benchmark.ts hands over the schedule and gets back per-request outputs.
 */
import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestOutput } from '../config/records.ts'
import { type ClientHealthSummary, withThreadHealth } from '../metrics/client-health.ts'
import { type ClientHealthMonitor, startClientHealthMonitor } from './client-health.ts'
import { type DispatchItem, type DispatchOptions, type DispatchOutcome, dispatch } from './dispatcher.ts'
import type { RetryStats } from './retry.ts'
import { segmentConcurrency, segmentShare, waitForStartAt } from './segments.ts'
import { autoClientThreads, type ClientThreads, startClientThreads } from './threads/client-threads.ts'
import type { PortableRequest } from './threads/messages.ts'

/** What the timed run sent and measured. */
export interface SentSchedule {
  outcome: DispatchOutcome
  /** Each result's index in the whole schedule (its segment's share only with `--segment`). */
  scheduleIndexes: number[]
  clientHealth?: ClientHealthSummary
  /** `Date.now()` when the dispatch started (`outcome.startS` on the monotonic clock). */
  startEpochMs: number
}

/** How many threads send the timed run: `--client-threads` (`auto`: {@link autoClientThreads}), else 1. */
export function clientThreadCount(config: BenchConfig): number {
  return config.clientThreads === 'auto' ? autoClientThreads() : (config.clientThreads ?? 1)
}

/**
 * Starts the client threads of `--client-threads`; undefined for one thread. They start before
 * the timed run: each loads the backend code once.
 */
export async function openClientThreads(
  config: BenchConfig,
  options: { connections: number; retries: RetryStats; signal?: AbortSignal },
): Promise<ClientThreads | undefined> {
  const count = clientThreadCount(config)
  if (count <= 1 || options.signal?.aborted) return undefined
  return startClientThreads({
    threads: count,
    backend: config.endpoint.backend,
    connections: options.connections,
    insecure: config.endpoint.insecure,
    httpTransport: config.endpoint.httpTransport,
    maxRetries: config.request.maxRetries ?? 0,
    retries: options.retries,
  })
}

/**
 * Sends the schedule (`items`, every request of it, each payload with its schedule `index`): the
 * segment's share, after `--start-at`, through `threads` when given (each payload made portable by
 * `portable`) or `sendHere`, behind the FIFO limit (the segment's share of `--max-concurrency`).
 */
export async function sendSchedule<P extends { index: number }>(
  config: BenchConfig,
  items: ReadonlyArray<DispatchItem<P>>,
  send: {
    threads: ClientThreads | undefined
    portable(payload: P): PortableRequest
    here(payload: P, signal: AbortSignal): Promise<RequestOutput>
    /** Applied to every output (secrets redacted). */
    after(output: RequestOutput): RequestOutput
  },
  options: Omit<DispatchOptions, 'maxConcurrency' | 'onRequestEnd'> & {
    /** After each request of this process's share; `total` is the share's size. */
    onShareEnd?(done: number, total: number, ended: { output: RequestOutput; inFlight: number }): void
  },
): Promise<SentSchedule> {
  const { threads } = send
  const share = segmentShare(items, config.segment)
  if (config.startAtEpochMs !== undefined) await waitForStartAt(config.startAtEpochMs, options.signal)
  let monitor: ClientHealthMonitor | undefined
  try {
    monitor =
      config.clientCheck === 'off'
        ? undefined
        : startClientHealthMonitor(undefined, { threadCpu: threads !== undefined })
    if (monitor) threads?.startHealth()
    const startEpochMs = Date.now()
    const { onShareEnd, ...dispatchOptions } = options
    const outcome = await dispatch(
      share,
      (payload, signal) =>
        (threads ? threads.send(send.portable(payload), signal) : send.here(payload, signal)).then(
          send.after,
        ),
      {
        ...dispatchOptions,
        ...(config.load.maxConcurrency
          ? { maxConcurrency: segmentConcurrency(config.load.maxConcurrency, config.segment) }
          : {}),
        onRequestEnd: (done, ended) => onShareEnd?.(done, share.length, ended),
      },
    )
    const mainHealth = monitor?.stop(outcome.results.map((r) => (r.arrivalTimeS - r.intendedTimeS) * 1000))
    const clientHealth =
      mainHealth && threads ? withThreadHealth(mainHealth, await threads.stopHealth()) : mainHealth
    return {
      outcome,
      scheduleIndexes: outcome.results.map((r) => share[r.index]!.payload.index),
      ...(clientHealth ? { clientHealth } : {}),
      startEpochMs,
    }
  } finally {
    monitor?.dispose()
  }
}
