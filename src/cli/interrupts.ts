import { EXIT_CODES } from '../errors.ts'

/** What the first and second Ctrl-C (or SIGTERM) of a run abort. */
export interface Interrupts {
  /** The first: no new requests; those in flight get the drain time; the partial result is written. */
  signal: AbortSignal
  /** The second: the requests in flight are aborted now, and what was measured is still written. */
  forceSignal: AbortSignal
  /** Removes the handlers. */
  dispose(): void
}

/** After the second interrupt, the process exits by this time even if something still holds it. */
export const FORCE_EXIT_MS = 3_000

/**
 * Installs the SIGINT and SIGTERM handlers of one `serve` command. The first signal stops the run
 * (`signal`), the second aborts what is in flight (`forceSignal`) and arms an exit after
 * {@link FORCE_EXIT_MS}, the third exits at once. The result is written with a temporary file and a
 * rename, so an exit in the middle of writing leaves the old file or none, never a 0-byte one.
 */
export function installInterrupts(log: (line: string) => void): Interrupts {
  const stop = new AbortController()
  const force = new AbortController()
  let count = 0
  const onSignal = (signal: NodeJS.Signals): void => {
    count++
    if (count === 1) {
      log(
        `\nservebench: ${signal} received: no new requests; waiting briefly for those in flight (again to stop them now)`,
      )
      stop.abort()
    } else if (count === 2) {
      log(`servebench: ${signal} received again: aborting the requests in flight; writing what was measured`)
      force.abort()
      setTimeout(() => process.exit(EXIT_CODES.interrupted), FORCE_EXIT_MS).unref()
    } else {
      process.exit(EXIT_CODES.interrupted)
    }
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return {
    signal: stop.signal,
    forceSignal: force.signal,
    dispose: () => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    },
  }
}

/**
 * After an interrupted run has written its result: left-behind work (a model lookup, dataset
 * workers, a socket a hostile server holds open) must not keep the process alive.
 */
export function exitSoonAfterInterrupt(): void {
  setTimeout(() => process.exit(EXIT_CODES.interrupted), 500).unref()
}
