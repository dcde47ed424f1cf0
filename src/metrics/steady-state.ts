/**
 * The steady-state window of a closed-loop run: the span during which concurrency sat at or above
 * a fraction of `--max-concurrency`, and the throughput and latency measured inside it, so ramp-up
 * and drain do not dilute the figures. Rust: detect_window and compute (metrics/steady_state.rs).
 */
import { mean, medianSorted, percentileSorted } from './percentile.ts'
import { pyFixed } from './py-number.ts'

/** What the window needs of a request (seconds; start times on any common clock). */
export interface SteadyStateRequest {
  success: boolean
  startTimeS: number
  latencyS: number
  ttftS: number
  itlS: readonly number[]
  promptLen: number
  outputLen: number
}

export interface SteadyStateOptions {
  /** `--max-concurrency`. */
  targetConcurrency: number
  /** `--steady-state-threshold`, in (0, 1]. */
  threshold: number
  /** `--steady-state-min-window`; undefined = max(10, 0.1 × total duration). */
  minWindowS?: number
  /** The run's duration, for the warning's percentage and the default minimum. */
  totalDurationS: number
  /** TTFT percentiles to report (`--metric-percentiles`). */
  percentiles: readonly number[]
  /** Pooling runs have no tokens: TTFT and TPOT are reported as 0. */
  isPooling?: boolean
}

/** Where the window lies, relative to the first successful start. */
export interface SteadyStateWindow {
  startS: number
  endS: number
  durationS: number
  targetConcurrency: number
  threshold: number
  thresholdAbs: number
  observedPeak: number
  requestsStartedInWindow: number
  requestsCompletedInWindow: number
  requestsTotal: number
  warning: string | null
}

/** The window and what was measured in it; latencies in ms, throughputs per second. */
export interface SteadyStateMetrics {
  window: SteadyStateWindow
  requestThroughput: number
  inputThroughput: number
  outputThroughput: number
  totalTokenThroughput: number
  meanTtftMs: number
  medianTtftMs: number
  /** `[percentile, ms]` pairs in the order asked. */
  percentilesTtftMs: Array<[number, number]>
  meanTpotMs: number
  medianTpotMs: number
  p90TpotMs: number
  p99TpotMs: number
}

interface Detected {
  window: SteadyStateWindow
  /** Absolute bounds of the half-open window `[upS, endAbsS)`. */
  upS: number
  endAbsS: number
}

/** Finds the window; undefined when concurrency never reached the threshold or nothing happened in it. */
export function detectSteadyStateWindow(
  requests: readonly SteadyStateRequest[],
  options: SteadyStateOptions,
): Detected | undefined {
  const { targetConcurrency: target, threshold } = options
  const thresholdAbs = Math.max(1, Math.ceil(threshold * target))
  const ok = requests.filter((r) => r.success)
  if (ok.length === 0) return undefined
  const starts = ok.map((r) => r.startTimeS).sort((a, b) => a - b)
  const ends = ok.map((r) => r.startTimeS + r.latencyS).sort((a, b) => a - b)

  let concurrency = 0
  let observedPeak = 0
  let upS: number | undefined
  let lastDownS: number | undefined
  let s = 0
  let e = 0
  // Ends before starts on equal times, so a hand-over does not count as a peak.
  while (s < starts.length || e < ends.length) {
    if (e < ends.length && (s >= starts.length || ends[e]! <= starts[s]!)) {
      const t = ends[e++]!
      const was = concurrency
      concurrency = Math.max(0, concurrency - 1)
      if (was >= thresholdAbs && concurrency < thresholdAbs) lastDownS = t
    } else {
      const t = starts[s++]!
      const was = concurrency
      concurrency++
      observedPeak = Math.max(observedPeak, concurrency)
      if (upS === undefined && was < thresholdAbs && concurrency >= thresholdAbs) upS = t
    }
  }
  if (upS === undefined) return undefined
  const endAbsS = lastDownS ?? ends[ends.length - 1]!
  const minStart = starts[0]!
  const startS = upS - minStart
  const endS = endAbsS - minStart
  const durationS = endS - startS
  const inWindow = (t: number): boolean => t >= upS && t < endAbsS
  const started = starts.filter(inWindow).length
  const completed = ends.filter(inWindow).length
  if (started === 0 && completed === 0) return undefined
  const minWindowS = options.minWindowS ?? Math.max(10, 0.1 * options.totalDurationS)
  const pct = (100 * durationS) / Math.max(options.totalDurationS, 1e-9)
  return {
    upS,
    endAbsS,
    window: {
      startS,
      endS,
      durationS,
      targetConcurrency: target,
      threshold,
      thresholdAbs,
      observedPeak,
      requestsStartedInWindow: started,
      requestsCompletedInWindow: completed,
      requestsTotal: requests.length,
      warning:
        durationS < minWindowS
          ? `steady-state window is ${pyFixed(durationS, 1)}s (${pyFixed(pct, 1)}% of run); may not be representative`
          : null,
    },
  }
}

/** The window and its figures; undefined when there is no window. */
export function computeSteadyState(
  requests: readonly SteadyStateRequest[],
  options: SteadyStateOptions,
): SteadyStateMetrics | undefined {
  const detected = detectSteadyStateWindow(requests, options)
  if (!detected) return undefined
  const { window, upS, endAbsS } = detected
  const inWindow = (t: number): boolean => t >= upS && t < endAbsS
  const ok = requests.filter((r) => r.success)
  const startedIn = ok.filter((r) => inWindow(r.startTimeS))
  const completions = ok.filter((r) => inWindow(r.startTimeS + r.latencyS)).length
  const inputTokens = startedIn.reduce((sum, r) => sum + r.promptLen, 0)
  let outputChunks = 0
  if (!options.isPooling) {
    for (const r of ok) {
      let t = r.startTimeS + r.ttftS
      if (inWindow(t)) outputChunks++
      for (const gap of r.itlS) {
        t += gap
        if (inWindow(t)) outputChunks++
      }
    }
  }
  const d = Math.max(window.durationS, 1e-9)
  const ttfts = options.isPooling ? [] : startedIn.map((r) => r.ttftS * 1000)
  const tpots = options.isPooling
    ? []
    : startedIn.filter((r) => r.outputLen > 1).map((r) => ((r.latencyS - r.ttftS) / (r.outputLen - 1)) * 1000)
  const sortedTtft = Float64Array.from(ttfts).sort()
  const sortedTpot = Float64Array.from(tpots).sort()
  const stat = (sorted: Float64Array, p: number): number => (sorted.length ? percentileSorted(sorted, p) : 0)
  return {
    window,
    requestThroughput: completions / d,
    inputThroughput: inputTokens / d,
    outputThroughput: outputChunks / d,
    totalTokenThroughput: (inputTokens + outputChunks) / d,
    meanTtftMs: ttfts.length ? mean(ttfts) : 0,
    medianTtftMs: sortedTtft.length ? medianSorted(sortedTtft) : 0,
    percentilesTtftMs: ttfts.length ? options.percentiles.map((p) => [p, stat(sortedTtft, p)]) : [],
    meanTpotMs: tpots.length ? mean(tpots) : 0,
    medianTpotMs: sortedTpot.length ? medianSorted(sortedTpot) : 0,
    p90TpotMs: stat(sortedTpot, 90),
    p99TpotMs: stat(sortedTpot, 99),
  }
}
