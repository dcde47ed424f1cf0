import type { RequestProgress } from '../runner/run-benchmark.ts'

/**
 * Live progress of a run on stderr: requests done and in flight, the request rate, p50 / p99 TTFT
 * so far and the time left. On a terminal one line is redrawn in place (at most every 100 ms);
 * otherwise a plain line is written every few seconds and when the run is done, so a CI log stays
 * short.
 */
export interface Progress {
  update(done: number, total: number, request?: RequestProgress): void
  finish(): void
}

/** Options of {@link createProgress}; the clock is injectable for tests. */
export interface ProgressOptions {
  /** A monotonic clock in ms. @default performance.now */
  nowMs?: () => number
  /** Least time between two plain lines (not a terminal), ms. @default 5000 */
  plainEveryMs?: number
}

/** What a progress line is made of. */
export interface ProgressState {
  done: number
  total: number
  inFlight: number | undefined
  /** Since the first request ended: the rate is counted from there (the run's set-up is not in it). */
  sinceFirstS: number
  /** TTFTs so far, ms, in arrival order. */
  ttftsMs: readonly number[]
}

const REDRAW_MS = 100
const DEFAULT_PLAIN_EVERY_MS = 5_000

export function createProgress(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  enabled: boolean,
  options: ProgressOptions = {},
): Progress {
  if (!enabled) return { update() {}, finish() {} }
  const nowMs = options.nowMs ?? (() => performance.now())
  const plainEveryMs = options.plainEveryMs ?? DEFAULT_PLAIN_EVERY_MS
  let firstMs: number | undefined
  const ttftsMs: number[] = []
  let lastDrawMs = Number.NEGATIVE_INFINITY
  let drawn = false
  let lastPlain = ''
  return {
    update(done, total, request) {
      if (request?.ttftS !== undefined) ttftsMs.push(request.ttftS * 1000)
      const now = nowMs()
      firstMs ??= now
      const finished = done >= total
      const every = stream.isTTY ? REDRAW_MS : plainEveryMs
      if (!finished && now - lastDrawMs < every) return
      lastDrawMs = now
      const state: ProgressState = {
        done,
        total,
        inFlight: request?.inFlight,
        sinceFirstS: (now - firstMs) / 1000,
        ttftsMs,
      }
      if (stream.isTTY) {
        stream.write(`\r${progressBar(done, total)} ${formatProgress(state)}\u001b[K`)
        drawn = true
        return
      }
      const line = `progress: ${formatProgress(state)}\n`
      if (line !== lastPlain) stream.write(line)
      lastPlain = line
    },
    finish() {
      if (drawn) stream.write('\n')
    },
  }
}

/**
 * `42/100 done · 8 in flight · 12.30 req/s · TTFT p50 45.1 / p99 120 ms · 4.7 s left`. The rate
 * counts the requests that ended after the first one, over the time since it ended.
 */
export function formatProgress(s: ProgressState): string {
  const rate = s.done > 1 && s.sinceFirstS > 0 ? (s.done - 1) / s.sinceFirstS : undefined
  const parts = [`${s.done}/${s.total} done`]
  if (s.inFlight !== undefined) parts.push(`${s.inFlight} in flight`)
  if (rate !== undefined) parts.push(`${rate.toFixed(2)} req/s`)
  if (s.ttftsMs.length > 0) {
    const sorted = [...s.ttftsMs].sort((a, b) => a - b)
    parts.push(`TTFT p50 ${ms(quantile(sorted, 0.5))} / p99 ${ms(quantile(sorted, 0.99))} ms`)
  }
  if (rate !== undefined && s.done < s.total) parts.push(`${((s.total - s.done) / rate).toFixed(1)} s left`)
  return parts.join(' · ')
}

function progressBar(done: number, total: number): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 1
  const width = 20
  const filled = Math.round(fraction * width)
  return `${String(Math.round(fraction * 100)).padStart(3)}%|${'█'.repeat(filled)}${' '.repeat(width - filled)}|`
}

// numpy 'linear' on a sorted sample, as the result's percentiles.
function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.min(lo + 1, sorted.length - 1)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
}

function ms(v: number): string {
  return v >= 100 ? v.toFixed(0) : v.toFixed(1)
}
