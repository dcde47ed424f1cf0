/**
 * A client thread's half of a timed run: its share of the schedule, sent by its own dispatcher
 * behind its own slots of `--max-concurrency`, timed on its own clock, under its own self-check
 * (its event loop, its busy time, its dispatch lags). Records go back to the main thread in
 * batches, not one message per request, so the main thread stays off the hot path.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { RequestOutput } from '../../config/records.ts'
import { withFields } from '../../with-fields.ts'
import { startLoopMonitor } from '../client-health.ts'
import { dispatch } from '../dispatcher.ts'
import type { RetryStats } from '../retry.ts'
import type {
  FromClientThread,
  PortableRequest,
  ThreadHealth,
  ThreadRecord,
  ThreadShare,
} from './messages.ts'

/** A batch leaves once it holds this many records… */
export const BATCH_RECORDS = 256
/** …or this long after its first record, so progress and a stop see them soon. */
export const BATCH_MS = 50

/** A share dealt and waiting for its start; `stop` and `force` may come at any time. */
export interface ArmedShare {
  /** Starts at `startAtMs` (`performance.timeOrigin + performance.now()`, ms); resolves once `finished` is posted. */
  go(startAtMs: number): Promise<void>
  /** The first interrupt: no new sends; those in flight get the drain time. */
  stop(): void
  /** The second: abort what is in flight now. */
  force(): void
}

/**
 * Arms `share`: `send` sends one request (with the thread's backend and retries, counting them
 * into `retries`), `post` carries messages to the main thread.
 */
export function armShare(
  share: ThreadShare,
  send: (request: PortableRequest, signal: AbortSignal) => Promise<RequestOutput>,
  post: (message: FromClientThread) => void,
  retries: RetryStats,
): ArmedShare {
  const stop = new AbortController()
  const force = new AbortController()
  let batch: ThreadRecord[] = []
  let timer: NodeJS.Timeout | undefined
  let inFlight = 0
  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    if (batch.length === 0) return
    post({ kind: 'records', records: batch, inFlight })
    batch = []
  }
  const { items } = share
  return {
    stop: () => stop.abort(),
    force: () => force.abort(),
    async go(startAtMs) {
      const startMs = startAtMs - performance.timeOrigin
      await waitUntil(startMs, stop.signal)
      // From the start on: a wait for --start-at is not the client's work.
      const monitor = share.clientCheck ? startLoopMonitor({ processCpu: false }) : undefined
      try {
        const outcome = await dispatch(items, (item, signal) => send(item.request, signal), {
          ...(share.maxConcurrency !== undefined ? { maxConcurrency: share.maxConcurrency } : {}),
          signal: stop.signal,
          forceSignal: force.signal,
          drainMs: share.drainMs,
          startS: startMs / 1000,
          closedLoop: share.closedLoop,
          // The first wave is timed on its own; the loop is judged after it.
          onFirstWave: () => monitor?.restart(),
          onRequestEnd: (_done, ended) => {
            inFlight = ended.inFlight
            batch.push(withFields(ended.record, { index: items[ended.record.index]!.payload.index }))
            if (batch.length >= BATCH_RECORDS) flush()
            else timer ??= setTimeout(flush, BATCH_MS)
          },
        })
        inFlight = 0
        flush()
        const health: ThreadHealth | undefined = monitor && {
          samples: { ...monitor.stop(), requests: items.length },
          latenessMs: outcome.latenessMs.filter((ms) => !Number.isNaN(ms)),
          ...(outcome.firstWave ? { firstWave: outcome.firstWave } : {}),
        }
        post({
          kind: 'finished',
          startS: outcome.startS,
          endS: outcome.endS,
          interrupted: outcome.interrupted,
          retries: { ...retries },
          ...(health ? { health } : {}),
        })
      } finally {
        monitor?.dispose()
      }
    },
  }
}

/** Waits until `performance.now()` reads `targetMs`: a timer, then a spin over the last millisecond. */
async function waitUntil(targetMs: number, signal: AbortSignal): Promise<void> {
  const left = targetMs - performance.now()
  if (left > 2) {
    try {
      await sleep(left - 1, undefined, { signal })
    } catch {
      return // Stopped before the start: the dispatcher sends nothing.
    }
  }
  while (!signal.aborted && performance.now() < targetMs) {
    // A timer may fire a millisecond late; every thread starts within a fraction of one.
  }
}
