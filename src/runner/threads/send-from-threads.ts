/**
 * The main thread's side of a timed run on client threads: it deals the share of the schedule
 * over the threads once (every n-th request, as `--segment` deals processes, and the
 * `--max-concurrency` slots as segments split them), starts them at one instant, forwards a stop,
 * takes their record batches (progress, redaction) and merges them into schedule order on its
 * clock. It sends nothing and times nothing itself, so it is off the hot path.
 */
import type { SegmentConfig } from '../../config/bench-config.ts'
import type { RequestOutput } from '../../config/records.ts'
import type { DispatchTiming, ThreadReport } from '../../metrics/client-health.ts'
import { inScheduleOrder } from '../../report/result/merge-shares.ts'
import { withFields } from '../../with-fields.ts'
import type { Dispatched, DispatchItem, DispatchOutcome } from '../dispatcher.ts'
import { noRetries, type RetryStats } from '../retry.ts'
import { segmentConcurrency, segmentShare } from '../segments.ts'
import { type ClientThreads, failedOutput, type ThreadEnd } from './client-threads.ts'
import type { PortableRequest, ShareItem, ThreadShare } from './messages.ts'

/** How far ahead of the `go` message the shared start lies, so every thread reads it before it is due. */
export const START_AHEAD_MS = 10

/** Options of {@link sendFromThreads}. */
export interface ThreadSendOptions<P> {
  portable(payload: P): PortableRequest
  /** The text a recorded error keeps (secrets masked). */
  redact(error: string): string
  maxConcurrency?: number
  /** Each thread runs its self-check. */
  clientCheck: boolean
  /** Every request is due at once: each thread releases its first wave as one burst. */
  closedLoop: boolean
  drainMs: number
  signal?: AbortSignal
  forceSignal?: AbortSignal
  /**
   * `--start-at`: the wall-clock start (epoch ms). The threads are armed first and start at it, so
   * their start-up does not delay it.
   */
  startAtEpochMs?: number
  /** After each record arrives; `inFlight` is every thread's latest count together. */
  onRequestEnd?(done: number, ended: { output: RequestOutput; inFlight: number }): void
}

/** What the threads sent and measured, on this thread's clock. */
export interface ThreadedOutcome {
  /** `results` in schedule order; `index` is the request's index in `share`. */
  outcome: DispatchOutcome
  /** `Date.now()` at `outcome.startS`. */
  startEpochMs: number
  /**
   * The self-check's evidence, with `clientCheck`: each thread's loop (or why it died), in thread
   * order (threads left without a share have none), and every thread's dispatch lateness.
   */
  health?: { threads: ThreadReport[]; lateness: Omit<DispatchTiming, 'loop'> }
  /** The threads' retries, together. */
  retries: RetryStats
  /** The threads given a share: at most one per request and per slot of `--max-concurrency`. */
  threads: number
}

/** Sends `share` from `threads`; never rejects for a failed request or a thread that dies. */
export async function sendFromThreads<P>(
  threads: ClientThreads,
  share: ReadonlyArray<DispatchItem<P>>,
  options: ThreadSendOptions<P>,
): Promise<ThreadedOutcome> {
  const used = Math.max(
    1,
    Math.min(threads.count, share.length, options.maxConcurrency ?? Number.POSITIVE_INFINITY),
  )
  const all: ShareItem[] = share.map((item, index) => ({
    offsetS: item.offsetS,
    payload: { request: options.portable(item.payload), index },
  }))
  const shares: ThreadShare[] = []
  for (let t = 0; t < used; t++) {
    const part: SegmentConfig = { index: t, count: used, source: '--client-threads' }
    shares.push({
      items: segmentShare(all, part),
      ...(options.maxConcurrency !== undefined
        ? { maxConcurrency: segmentConcurrency(options.maxConcurrency, part) }
        : {}),
      clientCheck: options.clientCheck,
      closedLoop: options.closedLoop,
      drainMs: options.drainMs,
    })
  }

  const received: Dispatched[] = []
  const inFlightOf = new Array<number>(used).fill(0)
  let done = 0
  const run = threads.run(shares, (t, records, inFlight) => {
    inFlightOf[t] = inFlight
    let inFlightNow = 0
    for (const n of inFlightOf) inFlightNow += n
    for (const record of records) {
      record.error = options.redact(record.error)
      received.push(record)
      options.onRequestEnd?.(++done, { output: record, inFlight: inFlightNow })
    }
  })
  await run.armed
  const { signal, forceSignal } = options
  const onStop = (): void => run.stop()
  const onForce = (): void => run.force()
  signal?.addEventListener('abort', onStop, { once: true })
  forceSignal?.addEventListener('abort', onForce, { once: true })
  let ends: ThreadEnd[]
  let startS: number
  let startEpochMs: number
  try {
    // A run stopped before its start still starts the threads, which then send nothing.
    if (signal?.aborted) run.stop()
    if (forceSignal?.aborted) run.force()
    const aheadMs =
      options.startAtEpochMs === undefined || signal?.aborted
        ? START_AHEAD_MS
        : Math.max(START_AHEAD_MS, options.startAtEpochMs - Date.now())
    const nowMs = performance.now()
    startS = (nowMs + aheadMs) / 1000
    startEpochMs = Date.now() + aheadMs
    run.go(performance.timeOrigin + nowMs + aheadMs)
    ends = await run.ended
  } finally {
    signal?.removeEventListener('abort', onStop)
    forceSignal?.removeEventListener('abort', onForce)
  }

  const retries = noRetries()
  let endS = startS
  let interrupted = signal?.aborted === true
  const reports: ThreadReport[] = []
  const latenessMs: number[] = []
  let firstWave: DispatchTiming['firstWave']
  const reported = new Set(received.map((r) => r.index))
  ends.forEach((end, t) => {
    if (end.kind === 'finished') {
      endS = Math.max(endS, end.endS)
      interrupted ||= end.interrupted
      retries.retries += end.retries.retries
      retries.retriedRequests += end.retries.retriedRequests
      retries.recovered += end.retries.recovered
      if (end.health) {
        reports.push({ samples: end.health.samples })
        latenessMs.push(...end.health.latenessMs)
        // The threads release their first waves at once: together, one wave as long as the slowest.
        const wave = end.health.firstWave
        if (wave)
          firstWave = {
            requests: (firstWave?.requests ?? 0) + wave.requests,
            releaseMs: Math.max(firstWave?.releaseMs ?? 0, wave.releaseMs),
          }
      }
      return
    }
    // A dead thread's requests that never came back are failed requests, not a crash.
    endS = Math.max(endS, end.atS)
    for (const item of shares[t]!.items) {
      if (reported.has(item.payload.index)) continue
      received.push(diedRecord(item, end, startS))
      options.onRequestEnd?.(++done, { output: received.at(-1)!, inFlight: 0 })
    }
    if (options.clientCheck) reports.push({ dead: end.reason })
  })
  return {
    outcome: {
      results: inScheduleOrder(received, (r) => r.index),
      // Each thread judged its own requests' lateness; together they are in `health`.
      latenessMs: [],
      ...(firstWave ? { firstWave } : {}),
      startS,
      endS,
      interrupted,
    },
    startEpochMs,
    ...(options.clientCheck
      ? { health: { threads: reports, lateness: { latenessMs, ...(firstWave ? { firstWave } : {}) } } }
      : {}),
    retries,
    threads: used,
  }
}

function diedRecord(item: ShareItem, end: { reason: string; atS: number }, startS: number): Dispatched {
  return withFields(failedOutput(end.atS, end.reason), {
    index: item.payload.index,
    intendedTimeS: startS + item.offsetS,
    arrivalTimeS: end.atS,
    queueTimeS: 0,
  })
}
