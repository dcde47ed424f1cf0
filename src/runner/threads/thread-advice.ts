/**
 * What a saturated run's client would have needed: from the busiest thread's share of its time
 * spent working, the `--client-threads` that would have left each thread about half idle (as
 * `auto` aims to), or, past what the machine's cores allow, segments over processes or machines.
 * Said once, after the run, with the self-check's verdict left to the self-check.
 */
import { availableParallelism } from 'node:os'
import type { ClientHealthSummary } from '../../metrics/client-health.ts'

/** The busy share of its time a thread is given by the advice: the headroom `auto` leaves. */
export const ADVISED_BUSY_SHARE = 0.5

/** The threads a saturated run would have needed. */
export interface ThreadAdvice {
  /** The threads that sent. */
  threads: number
  /** The threads that would have kept up. */
  needed: number
  /** The busiest thread's busy share of the run (1 = busy all the time). */
  busiest: number
  /** Threads this machine has room for (its cores less one). */
  room: number
}

/**
 * The advice for a run's self-check, or undefined when the client kept up or when more threads
 * would not have helped (no thread was busier than {@link ADVISED_BUSY_SHARE}: a pause or a lag
 * that more threads do not cure).
 */
export function threadAdvice(
  health: ClientHealthSummary,
  cores: number = availableParallelism(),
): ThreadAdvice | undefined {
  if (!health.saturated) return undefined
  const threads = health.clientThreads ?? 1
  // Client threads report their own event loop's busy share; one thread, the process's CPU.
  const busiest = health.threads
    ? Math.max(0, ...health.threads.map((t) => t.cpuShareOfCore))
    : health.cpuShareOfCore
  if (!(busiest > ADVISED_BUSY_SHARE)) return undefined
  const needed = Math.max(threads + 1, Math.ceil((threads * busiest) / ADVISED_BUSY_SHARE))
  return { threads, needed, busiest, room: Math.max(1, cores - 1) }
}

/** The line printed after a saturated run: the setting that would have kept up, or the way past this machine. */
export function threadAdviceLine(advice: ThreadAdvice): string {
  const busy = `its busiest thread was busy ${Math.round(advice.busiest * 100)}% of the run`
  const now = `servebench: the client was saturated with --client-threads ${advice.threads} (${busy})`
  if (advice.needed <= advice.room) return `${now}; --client-threads ${advice.needed} would have kept up`
  return (
    `${now}; it needs about ${advice.needed} threads, more than the ${advice.room} this machine's cores leave: ` +
    'send it from several processes or machines with --segment i/n and servebench merge (docs/scaling-the-client.md)'
  )
}
