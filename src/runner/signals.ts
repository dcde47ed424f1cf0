import { setTimeout as sleep } from 'node:timers/promises'
import {
  type FinishedRun,
  type RunExtras,
  type RunExtrasContext,
  type RunExtrasOutcome,
  startRunExtras,
} from './run-extras.ts'

/** What {@link untilAborted} gives when the signal won the race. */
export const ABORTED: unique symbol = Symbol('aborted')

/**
 * `work`, or {@link ABORTED} as soon as `signal` aborts (at once when it already has). The work is
 * not cancelled, only left behind: a phase that cannot be stopped from outside (a model lookup, a
 * tokenizer download, dataset generation on worker threads) no longer holds the run.
 */
export function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | typeof ABORTED> {
  if (signal === undefined) return work
  if (signal.aborted) {
    work.catch(() => {}) // Left behind: its failure must not become an unhandled rejection.
    return Promise.resolve(ABORTED)
  }
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const onAbort = (): void => {
      work.catch(() => {})
      resolve(ABORTED)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** How requests in flight are let go when a run is stopped. */
export interface DrainOptions {
  /** The first Ctrl-C or SIGTERM: no new sends; those in flight get `drainMs`. */
  signal?: AbortSignal | undefined
  /** The second one: abort what is in flight now. */
  forceSignal?: AbortSignal | undefined
  drainMs: number
  /** Aborts every request still in flight; each then settles as a failed request. */
  abortInFlight(): void
}

/**
 * Waits for `pending` (every request sent). When `signal` aborts, before or during the wait, the
 * requests in flight get `drainMs` (or until `forceSignal`) to finish, then are aborted. The drain
 * starts whenever the signal comes, also after the last request was sent (at `--request-rate inf`
 * that is at once), so a server that never answers cannot hold a stopped run.
 */
export async function settleWithDrain(pending: Promise<unknown>, options: DrainOptions): Promise<void> {
  const done = pending.then(() => 'done' as const)
  if ((await untilAborted(done, options.signal)) === 'done') return
  const controller = new AbortController()
  const timer = sleep(options.drainMs, 'timeout' as const, { signal: controller.signal }).catch(
    () => 'done' as const,
  )
  const forced = untilAborted(new Promise<never>(() => {}), options.forceSignal ?? controller.signal)
  const first = await Promise.race([done, timer, forced])
  controller.abort()
  if (first !== 'done') options.abortInFlight()
  await done
}

/** How long a stopped run waits for its extras (the `/metrics` scrape, the profiler stop) to finish. */
export const STOPPED_EXTRAS_MS = 1_000

const NO_EXTRAS: RunExtras = { finish: () => Promise.resolve({ extra: [] }) }

/**
 * The run extras (profiler, `/metrics` snapshot, probe) unless the run is stopped first: a server
 * that never answers `/metrics` must not hold an interrupted run.
 */
export async function startExtrasUnlessStopped(
  stop: AbortSignal | undefined,
  context: RunExtrasContext,
): Promise<RunExtras> {
  if (stop?.aborted) return NO_EXTRAS
  const extras = await untilAborted(startRunExtras(context), stop)
  return extras === ABORTED ? NO_EXTRAS : extras
}

/** `extras.finish(run)`, given at most {@link STOPPED_EXTRAS_MS} when the run was stopped. */
export async function finishExtras(
  stop: AbortSignal | undefined,
  extras: RunExtras,
  run: FinishedRun,
): Promise<RunExtrasOutcome> {
  const finishing = extras.finish(run)
  if (!stop?.aborted) return finishing
  finishing.catch(() => {})
  const fallback = sleep(STOPPED_EXTRAS_MS, { extra: [] } as RunExtrasOutcome, { ref: false })
  return Promise.race([finishing, fallback])
}
