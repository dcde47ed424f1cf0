import type { RequestProgress } from '../runner/run-benchmark.ts'

/**
 * Live progress of a run on stderr: requests done and in flight, the request rate, p50 / p99 TTFT
 * (E2EL for pooling runs) so far and the time left. On a terminal one line is redrawn in place (at most every 100 ms);
 * otherwise a plain line is written every few seconds and when the run is done, so a CI log stays
 * short.
 */
export interface Progress {
  update(done: number, total: number, request?: RequestProgress): void
  finish(): void
}

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  /** Least time between two redraws or plain lines, ms: the clock is the run's own (`elapsedS`). */
  plainEveryMs?: number
}

/** What a progress line is made of. */
export interface ProgressState {
  done: number
  total: number
  inFlight: number | undefined
  /** Requests that succeeded so far: the rate counts these, as the result's request throughput does. */
  completed: number
  /** Since the timed run started, s: the rate is over the same span as the result's duration. */
  elapsedS: number
  /** What `latenciesMs` are: time to first token, or a pooling request's whole latency. */
  latency: 'TTFT' | 'E2EL'
  /** Latencies so far, ms, in arrival order. */
  latenciesMs: readonly number[]
}

const REDRAW_MS = 100
const DEFAULT_PLAIN_EVERY_MS = 5_000

export function createProgress(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  enabled: boolean,
  options: ProgressOptions = {},
): Progress {
  if (!enabled) return { update() {}, finish() {} }
  const plainEveryMs = options.plainEveryMs ?? DEFAULT_PLAIN_EVERY_MS
  const latenciesMs: number[] = []
  let latency: ProgressState['latency'] = 'TTFT'
  let completed = 0
  let lastDrawMs = Number.NEGATIVE_INFINITY
  let drawn = false
  let lastPlain = ''
  return {
    update(done, total, request) {
      if (request?.success) completed++
      if (request?.ttftS !== undefined) latenciesMs.push(request.ttftS * 1000)
      if (request?.e2elS !== undefined) {
        latency = 'E2EL'
        latenciesMs.push(request.e2elS * 1000)
      }
      const elapsedMs = (request?.elapsedS ?? 0) * 1000
      const finished = done >= total
      const every = stream.isTTY ? REDRAW_MS : plainEveryMs
      if (!finished && elapsedMs - lastDrawMs < every) return
      lastDrawMs = elapsedMs
      const state: ProgressState = {
        done,
        total,
        inFlight: request?.inFlight,
        completed,
        elapsedS: request?.elapsedS ?? 0,
        latency,
        latenciesMs,
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
 * `42/100 done · 8 in flight · 12.30 req/s · TTFT p50 45.1 / p99 120 ms · 4.7 s left`. The rate is
 * the result's request throughput so far: requests that succeeded over the time since the timed run
 * started; the time left is the requests still to end at the rate they end.
 */
export function formatProgress(s: ProgressState): string {
  const rate = s.elapsedS > 0 ? s.completed / s.elapsedS : undefined
  const parts = [`${s.done}/${s.total} done`]
  if (s.inFlight !== undefined) parts.push(`${s.inFlight} in flight`)
  if (rate !== undefined && s.done > 0) parts.push(`${rate.toFixed(2)} req/s`)
  if (s.latenciesMs.length > 0) {
    const sorted = [...s.latenciesMs].sort((a, b) => a - b)
    parts.push(`${s.latency} p50 ${ms(quantile(sorted, 0.5))} / p99 ${ms(quantile(sorted, 0.99))} ms`)
  }
  const endRate = s.elapsedS > 0 ? s.done / s.elapsedS : 0
  if (endRate > 0 && s.done < s.total) parts.push(`${((s.total - s.done) / endRate).toFixed(1)} s left`)
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
