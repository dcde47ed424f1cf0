/**
 * Throughput as a sample: requests/s or tokens/s in fixed windows of a run's steady part, so a
 * throughput check compares two samples of rates instead of two single numbers. Ramp-up and drain
 * are left out, since a run's first and last seconds measure the client's start and stop rather
 * than the server. Pure.
 *
 * The steady part is the run's `steady_state` window when it has one (closed loops). Otherwise it
 * runs from the start of the request at rank ⌈n/10⌉ in start order (the first tenth of the
 * requests is ramp-up) to the start of the last request (after it, concurrency only falls: drain).
 * The window width is the median end-to-end latency (about one closed-loop wave, so a wave's
 * completions do not land in alternate windows), and at most a quarter of the steady part, so there
 * are at least 4 windows; at most MAX_WINDOWS windows.
 */
import type { BlockedRun } from './block-bootstrap.ts'

/** What a window needs of a request (seconds, start times on the run's common clock). */
export interface TimelineRequest {
  success: boolean
  startS: number
  latencyS: number
  /** 0 for pooling requests (no token stream). */
  ttftS: number
  itlsS: readonly number[]
  inputLen: number
  outputLen: number
}

/** `request`: completions/s; `output`: output tokens/s; `total`: input + output tokens/s. */
export type ThroughputKind = 'request' | 'output' | 'total'

/** A span on the requests' clock. */
export interface TimeSpan {
  startS: number
  endS: number
}

export interface WindowedThroughput {
  /** The steady part the windows cover. */
  span: TimeSpan
  windowS: number
  /** One rate per window, in order. */
  rates: number[]
}

export const MAX_WINDOWS = 100
export const MIN_WINDOWS = 4

/**
 * The steady part: `steadyWindow` (offsets from the first successful start, as `steady_state.window`
 * gives `start_s`/`end_s`) when given, else the rule of the module comment. Undefined when the
 * run has no successful request or no positive span.
 */
export function steadySpan(
  requests: readonly TimelineRequest[],
  steadyWindow?: { startS: number; endS: number },
): TimeSpan | undefined {
  const starts = requests
    .filter((r) => r.success && Number.isFinite(r.startS))
    .map((r) => r.startS)
    .sort((a, b) => a - b)
  if (starts.length < 2) return undefined
  const first = starts[0]!
  const span = steadyWindow
    ? { startS: first + steadyWindow.startS, endS: first + steadyWindow.endS }
    : { startS: starts[Math.ceil(starts.length / 10) - 1]!, endS: starts[starts.length - 1]! }
  return span.endS > span.startS ? span : undefined
}

/** Rates of `kind` in equal windows over the steady part; no rates when there is no steady part. */
export function windowThroughputs(
  requests: readonly TimelineRequest[],
  kind: ThroughputKind,
  options: { span?: TimeSpan; windowS?: number } = {},
): WindowedThroughput {
  const span = options.span ?? steadySpan(requests)
  if (!span) return { span: { startS: 0, endS: 0 }, windowS: 0, rates: [] }
  const lengthS = span.endS - span.startS
  const windowS = options.windowS ?? defaultWindowS(requests, lengthS)
  const count = Math.max(1, Math.min(MAX_WINDOWS, Math.floor(lengthS / windowS + 1e-9)))
  const sums = new Array<number>(count).fill(0)
  const add = (t: number, amount: number): void => {
    const i = Math.floor((t - span.startS) / windowS)
    if (t >= span.startS && i < count) sums[i]! += amount
  }
  for (const r of requests) {
    if (!r.success) continue
    if (kind === 'request') {
      add(r.startS + r.latencyS, 1)
      continue
    }
    // Output tokens arrive with their chunks: the first at TTFT, the others one gap apart. A chunk
    // may carry several tokens; spread the output length evenly over the chunks.
    const chunks = r.itlsS.length + 1
    const perChunk = r.outputLen / chunks
    let t = r.startS + r.ttftS
    if (kind === 'total') add(t, r.inputLen) // prefill is done when the first token arrives
    add(t, perChunk)
    for (const gap of r.itlsS) {
      t += gap
      add(t, perChunk)
    }
  }
  return { span, windowS, rates: sums.map((s) => s / windowS) }
}

function defaultWindowS(requests: readonly TimelineRequest[], lengthS: number): number {
  const latencies = requests
    .filter((r) => r.success)
    .map((r) => r.latencyS)
    .sort((a, b) => a - b)
  const median = latencies.length > 0 ? latencies[Math.floor((latencies.length - 1) / 2)]! : lengthS
  return Math.max(lengthS / MAX_WINDOWS, Math.min(median > 0 ? median : lengthS, lengthS / MIN_WINDOWS))
}

/**
 * The windows of each run as bootstrap samples: every window is its own block, and the runs of a
 * multi-run baseline stay runs (resampled first).
 */
export function windowRuns(ratesPerRun: readonly (readonly number[])[]): BlockedRun[] {
  return ratesPerRun
    .filter((rates) => rates.length > 0)
    .map((rates) => ({ values: rates, blocks: rates.map((_, i) => i) }))
}
