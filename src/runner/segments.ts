/**
 * Execution segments (`--segment i/n`) and a shared start (`--start-at`): several processes, on one
 * machine or many, each send their share of the one seeded schedule, starting together, and
 * `servebench merge` joins what they measured. A segment takes every n-th request (i, i+n, …), so
 * each carries the same load shape over the whole run at 1/n of the rate; the requests keep their
 * global index, offset and id.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { SegmentConfig } from '../config/bench-config.ts'

/** The items of segment `index` of `count`: every `count`-th one from `index`; all without a segment. */
export function segmentShare<T>(items: readonly T[], segment: SegmentConfig | undefined): T[] {
  if (!segment) return [...items]
  return items.filter((_, i) => i % segment.count === segment.index)
}

/**
 * A segment's share of `--max-concurrency`, as k6 splits VUs: `c` slots dealt over the `n`
 * segments (the first `c mod n` get one more), at least 1, so the segments together hold the limit
 * one process would. Without a segment, `c`.
 */
export function segmentConcurrency(maxConcurrency: number, segment: SegmentConfig | undefined): number {
  if (!segment) return maxConcurrency
  const share =
    Math.floor(maxConcurrency / segment.count) + (segment.index < maxConcurrency % segment.count ? 1 : 0)
  return Math.max(1, share)
}

// Node fires a longer timer at once with a warning.
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Waits until the wall clock reads `startAtEpochMs` (sleeping, then spinning the last 2 ms on the
 * monotonic clock for a start within a fraction of a millisecond). Returns at once when the time
 * has passed or the signal aborts; returns how late the start was, ms (negative: not reached, aborted).
 */
export async function waitForStartAt(startAtEpochMs: number, signal?: AbortSignal): Promise<number> {
  // The wall clock read once, then the monotonic clock: an NTP step mid-wait moves nothing.
  const target = performance.now() + (startAtEpochMs - Date.now())
  for (;;) {
    const left = target - performance.now()
    if (left <= 2 || signal?.aborted) break
    try {
      await sleep(Math.min(left - 2, MAX_TIMER_MS), undefined, signal ? { signal } : undefined)
    } catch {
      break
    }
  }
  while (!signal?.aborted && performance.now() < target) {
    // The last 2 ms: a timer can fire a millisecond late; a short spin starts segments together.
  }
  return performance.now() - target
}
