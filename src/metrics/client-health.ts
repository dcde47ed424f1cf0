/**
 * The client's self-check: whether the benchmark client itself was the bottleneck of a run (an
 * event loop too late or too busy to read chunks on time, requests sent late, long GC pauses), so
 * that a verdict does not blame the server for the client's own saturation. Pure: the monitor in
 * runner/client-health.ts gathers each thread's figures, the dispatcher the lateness of each
 * request; this judges them with rules that each need enough evidence and whose limits scale with
 * the latencies the run measured. Texts are in client-health-text.ts. See docs/client-health.md.
 */
import type { ResolvedHttpTransport } from '../config/bench-config.ts'
import { formatMs, judgedReason, remedyOf, unjudgedNote } from './client-health-text.ts'
import { type TickDelays, withLoopDelays } from './loop-delay.ts'
import { percentile } from './percentile.ts'

/** What the monitor measured on one thread's event loop over the judged span. */
export interface LoopSamples {
  /** Wall time the figures cover, seconds (a closed loop's: from the end of its first wave). */
  spanS: number
  /**
   * Event-loop delay beyond the sampling interval, ms, of the ticks that fired. With
   * {@link tickDelays} the judged figures are computed from those instead (metrics/loop-delay.ts).
   */
  eventLoopDelayMs: { p50: number; p99: number; max: number }
  /** Timer samples behind the delay figures. */
  eventLoopDelaySamples: number
  /** Each tick's delay, `[ms, ticks]` in 0.1 ms steps, and the timer's interval. */
  tickDelays?: TickDelays
  resolutionMs?: number
  /** Share of the span the loop was busy, 0–1 (perf_hooks `eventLoopUtilization`). */
  eventLoopUtilization: number
  /**
   * CPU time over the span, ms: the process's (every thread) on the main thread of a single-thread
   * CLI run, else this loop's busy time. Reported, not judged: V8's helper threads count in it.
   */
  cpuTimeMs: number
  /** Each garbage-collection pause, ms. */
  gcPausesMs: readonly number[]
  /** A client thread: the requests it was given since the start; one given none read nothing. */
  requests?: number
}

/** What a thread reported: its loop's figures, or why it stopped. */
export type ThreadReport = { samples: LoopSamples } | { dead: string }

/** How late the client sent its requests. */
export interface DispatchTiming {
  /** `closed`: `--request-rate inf` without ramp-up or trace, every request due at once. */
  loop: 'open' | 'closed'
  /**
   * Per judged request, ms: when it was started minus when it was due. Due is its schedule time,
   * or, for a request that waited for a concurrency slot, when the request before it in that slot
   * ended. A closed loop's first wave is not in it.
   */
  latenessMs: readonly number[]
  /** Closed loops: how many requests the first wave holds and how long releasing them took, ms. */
  firstWave?: { requests: number; releaseMs: number }
}

/**
 * What reading is judged against: the inter-token gaps, the time to the first token, a stream's
 * decode time (end-to-end latency minus TTFT, what TPOT divides), or the end-to-end latency.
 */
export type ReadingMetric = 'itl' | 'ttft' | 'decode' | 'e2el'

/** The latencies the limits scale with, ms (medians of the run's successful requests). */
export interface LatencyScales {
  /** Reading a response is judged against this: the median ITL of streams, else the median latency. */
  readingMs?: number
  readingMetric?: ReadingMetric
  /** Sending is judged against the median end-to-end latency. */
  sendingMs?: number
  /** The median of each reading metric the run measured, to judge it again at another (client-health-scale.ts). */
  medians?: Partial<Record<ReadingMetric, number>>
}

/**
 * How the rules judge. The loop-delay and lateness limits are a share of the run's own latencies,
 * kept between a floor and a ceiling: a 10 ms stall is noise against a 500 ms TTFT and ruins a 2 ms
 * ITL. Each rule judges only with enough evidence; below it the rule says `too-short`.
 */
export interface ClientHealthPolicy {
  /** Limit of the event-loop delay p99 and the dispatch lateness p99, as a share of the latency scale. @default 0.25 */
  limitShare: number
  /** @default 5 */
  limitFloorMs: number
  /** @default 50 */
  limitCeilingMs: number
  /** Busy share of a loop (event-loop utilisation) above which it had no time to spare. @default 0.9 */
  eventLoopUtilization: number
  /** The longest GC pause. @default 100 */
  gcMaxMs: number
  /** Span the event-loop delay and GC rules need, seconds. @default 0.25 */
  minSpanS: number
  /** Timer samples the event-loop delay rule needs. @default 20 */
  minDelaySamples: number
  /** Span the busy-share rule needs, seconds: start-up compiling dominates a shorter one. @default 1 */
  minBusySpanS: number
  /** Judged requests the lateness rule needs. @default 20 */
  minLateRequests: number
}

export const DEFAULT_CLIENT_HEALTH_POLICY: Readonly<ClientHealthPolicy> = Object.freeze({
  limitShare: 0.25,
  limitFloorMs: 5,
  limitCeilingMs: 50,
  eventLoopUtilization: 0.9,
  gcMaxMs: 100,
  minSpanS: 0.25,
  minDelaySamples: 20,
  minBusySpanS: 1,
  minLateRequests: 20,
})

/** The limits one run was judged against. */
export interface ClientHealthLimits {
  eventLoopDelayP99Ms: number
  dispatchLagP99Ms: number
  eventLoopUtilization: number
  gcMaxMs: number
}

export type ClientHealthRuleName = 'event-loop-delay' | 'event-loop-busy' | 'dispatch-lateness' | 'gc-pause'

/** One rule on one thread. */
export interface ClientHealthRule {
  rule: ClientHealthRuleName
  /** `main`, or the index of a `--client-threads` thread. */
  thread: 'main' | number
  /** `too-short`: not enough evidence, the rule did not judge. */
  state: 'ok' | 'saturated' | 'too-short'
  value: number
  limit: number
}

/**
 * `ok`: the rules that read responses judged, none fired; `saturated`: a rule fired; `too-short`:
 * too little run for the reading rules to judge, none fired; `no-data`: no request succeeded.
 */
export type ClientHealthState = 'ok' | 'saturated' | 'too-short' | 'no-data'

/** The self-check of one run, or of one client thread (in `threads`). */
export interface ClientHealthSummary {
  state: ClientHealthState
  /** `state === 'saturated'`: the run's latencies measure the client, not the server. */
  saturated: boolean
  /** One sentence per rule that fired, as users read it; empty unless saturated. */
  reasons: string[]
  /** Saturated: what to change, e.g. `--client-threads 3`. */
  remedy?: string
  /** One sentence per rule that lacked the evidence to judge. */
  unjudged: string[]
  rules: ClientHealthRule[]
  loop: 'open' | 'closed'
  durationS: number
  eventLoopDelayP50Ms: number
  eventLoopDelayP99Ms: number
  eventLoopDelayMaxMs: number
  eventLoopDelaySamples: number
  eventLoopUtilization: number
  dispatchLagP50Ms: number
  dispatchLagP99Ms: number
  dispatchLagMaxMs: number
  dispatchLagSamples: number
  /** Closed loops: the first wave, released before the judged span. */
  firstWaveRequests?: number
  firstWaveReleaseMs?: number
  /** CPU time over wall time (see {@link LoopSamples.cpuTimeMs}); reported, not judged. */
  cpuShareOfCore: number
  cpuCount: number
  gcCount: number
  gcTotalMs: number
  gcMaxMs: number
  scales: LatencyScales
  thresholds: ClientHealthLimits
  /** What carried the run's streamed requests (`--http-transport`, `auto` resolved); set by the runner. */
  httpTransport?: ResolvedHttpTransport
  /** The threads that sent the requests (`--client-threads`, `auto` resolved). */
  clientThreads?: number
  /** `--client-threads N` (N > 1): each client thread's own self-check, in thread order. */
  threads?: ClientHealthSummary[]
  /** What it was judged on, to judge it again at another reading scale; in memory, never written. */
  input?: ClientHealthInput
}

/** Everything one run's self-check is judged on. */
export interface ClientHealthInput {
  /** The main thread's loop: it reads the responses unless `threads` do. */
  main: LoopSamples
  /** `--client-threads N`: each thread's report; they read the responses, the main thread sends. */
  threads?: readonly ThreadReport[]
  dispatch: DispatchTiming
  scales: LatencyScales
  /** Successful requests: none means nothing was measured, so nothing is judged. */
  succeeded: number
  cpuCount: number
}

/** The limit of a delay judged against `scaleMs`: a share of it, between the floor and the ceiling. */
export function scaledLimitMs(scaleMs: number | undefined, policy: ClientHealthPolicy): number {
  if (scaleMs === undefined || !Number.isFinite(scaleMs)) return policy.limitCeilingMs
  return Math.min(policy.limitCeilingMs, Math.max(policy.limitFloorMs, scaleMs * policy.limitShare))
}

/** Judges one run (defaults: {@link DEFAULT_CLIENT_HEALTH_POLICY}). */
export function summarizeClientHealth(
  given: ClientHealthInput,
  policy: ClientHealthPolicy = DEFAULT_CLIENT_HEALTH_POLICY,
): ClientHealthSummary {
  const input = withLoopDelays(given)
  const limits: ClientHealthLimits = {
    eventLoopDelayP99Ms: scaledLimitMs(input.scales.readingMs, policy),
    dispatchLagP99Ms: scaledLimitMs(input.scales.sendingMs, policy),
    eventLoopUtilization: policy.eventLoopUtilization,
    gcMaxMs: policy.gcMaxMs,
  }
  const threaded = input.threads !== undefined && input.threads.length > 0
  const lags = input.dispatch.latenessMs.map((ms) => Math.max(0, ms))
  const dispatchP99 = percentile(lags, 99)
  const mainRules = loopRules(input.main, 'main', limits, policy, !threaded)
  mainRules.push(
    judge(
      'dispatch-lateness',
      'main',
      dispatchP99,
      limits.dispatchLagP99Ms,
      lags.length >= policy.minLateRequests,
    ),
  )
  const main = figures(input, limits, mainRules, lags)
  const threads = (input.threads ?? []).map((t, i) => threadSummary(t, i, input, limits, policy))
  const rules = [...mainRules, ...threads.flatMap((t) => t.rules)]
  const summary: ClientHealthSummary = { ...main, rules, ...(threaded ? { threads } : {}) }
  if (input.succeeded === 0) {
    // A run with no successful request measured no latency: nothing to be wrong about. A tight
    // loop of fast failures also looks like a busy client, which it is not.
    return { ...summary, state: 'no-data', saturated: false, reasons: [], unjudged: [], input: given }
  }
  const fired = rules.filter((r) => r.state === 'saturated')
  const deadReasons = threads.flatMap((t, i) =>
    t.state === 'saturated' && t.rules.length === 0 ? [`client thread ${i}: ${t.reasons[0]}`] : [],
  )
  const reasons = [
    ...fired.map((r) => prefixed(r, threaded, judgedReason(r, summaryOf(r, summary)))),
    ...deadReasons,
  ]
  const unjudged = rules
    .filter((r) => r.state === 'too-short')
    .map((r) => prefixed(r, threaded, unjudgedNote(r, policy, summaryOf(r, summary))))
  // The reading rules decide between ok and too-short: they are the ones that see distorted stamps.
  const readingJudged = rules.some(
    (r) =>
      r.rule === 'event-loop-delay' && r.state !== 'too-short' && (threaded ? r.thread !== 'main' : true),
  )
  const saturated = reasons.length > 0
  const state: ClientHealthState = saturated ? 'saturated' : readingJudged ? 'ok' : 'too-short'
  const remedy = saturated ? remedyOf(fired, summary) : undefined
  return { ...summary, state, saturated, reasons, unjudged, ...(remedy ? { remedy } : {}), input: given }
}

/** The summary whose figures a rule judged: the main one, or its thread's. */
function summaryOf(rule: ClientHealthRule, summary: ClientHealthSummary): ClientHealthSummary {
  return rule.thread === 'main' ? summary : (summary.threads?.[rule.thread] ?? summary)
}

function prefixed(rule: ClientHealthRule, threaded: boolean, text: string): string {
  if (!threaded) return text
  return `${rule.thread === 'main' ? 'main thread' : `client thread ${rule.thread}`}: ${text}`
}

// The rules of one event loop. The delay rule is the reading rule: on the thread that reads
// responses (the main thread of a single-thread run, each client thread of a threaded one).
function loopRules(
  s: LoopSamples,
  thread: 'main' | number,
  limits: ClientHealthLimits,
  policy: ClientHealthPolicy,
  reads: boolean,
): ClientHealthRule[] {
  const spanOk = s.spanS >= policy.minSpanS
  const rules: ClientHealthRule[] = []
  if (reads) {
    rules.push(
      judge(
        'event-loop-delay',
        thread,
        s.eventLoopDelayMs.p99,
        limits.eventLoopDelayP99Ms,
        spanOk && s.eventLoopDelaySamples >= policy.minDelaySamples,
      ),
    )
  }
  rules.push(
    judge(
      'event-loop-busy',
      thread,
      s.eventLoopUtilization,
      limits.eventLoopUtilization,
      s.spanS >= policy.minBusySpanS,
    ),
  )
  rules.push(judge('gc-pause', thread, maxOf(s.gcPausesMs), limits.gcMaxMs, spanOk))
  return rules
}

function judge(
  rule: ClientHealthRuleName,
  thread: 'main' | number,
  value: number,
  limit: number,
  enough: boolean,
): ClientHealthRule {
  // A figure equal to its limit is healthy.
  const state = !enough ? 'too-short' : value > limit ? 'saturated' : 'ok'
  return { rule, thread, state, value, limit }
}

function threadSummary(
  report: ThreadReport,
  index: number,
  input: ClientHealthInput,
  limits: ClientHealthLimits,
  policy: ClientHealthPolicy,
): ClientHealthSummary {
  // A client thread releases nothing: the dispatch figures and the first wave are the main thread's.
  const ownLoop: DispatchTiming = { loop: input.dispatch.loop, latenessMs: [] }
  if ('dead' in report) {
    const empty: LoopSamples = {
      spanS: 0,
      eventLoopDelayMs: { p50: 0, p99: 0, max: 0 },
      eventLoopDelaySamples: 0,
      eventLoopUtilization: 0,
      cpuTimeMs: 0,
      gcPausesMs: [],
    }
    const base = figures({ ...input, main: empty, dispatch: ownLoop }, limits, [], [])
    return { ...base, state: 'saturated', saturated: true, reasons: [report.dead] }
  }
  // A thread that was given no request (one request in flight, two threads) read nothing.
  const rules = loopRules(report.samples, index, limits, policy, report.samples.requests !== 0)
  const base = figures({ ...input, main: report.samples, dispatch: ownLoop }, limits, rules, [])
  const fired = rules.filter((r) => r.state === 'saturated')
  const reasons = fired.map((r) => judgedReason(r, base))
  const readingJudged = rules.some((r) => r.rule === 'event-loop-delay' && r.state !== 'too-short')
  const state: ClientHealthState = fired.length > 0 ? 'saturated' : readingJudged ? 'ok' : 'too-short'
  return {
    ...base,
    state,
    saturated: fired.length > 0,
    reasons,
    unjudged: rules.filter((r) => r.state === 'too-short').map((r) => unjudgedNote(r, policy, base)),
  }
}

// The figures of one loop (and of the dispatch, on the main thread), before the verdict.
function figures(
  input: ClientHealthInput,
  limits: ClientHealthLimits,
  rules: ClientHealthRule[],
  lags: readonly number[],
): ClientHealthSummary {
  const s = input.main
  const { firstWave } = input.dispatch
  return {
    state: 'ok',
    saturated: false,
    reasons: [],
    unjudged: [],
    rules,
    loop: input.dispatch.loop,
    durationS: s.spanS,
    eventLoopDelayP50Ms: s.eventLoopDelayMs.p50,
    eventLoopDelayP99Ms: s.eventLoopDelayMs.p99,
    eventLoopDelayMaxMs: s.eventLoopDelayMs.max,
    eventLoopDelaySamples: s.eventLoopDelaySamples,
    eventLoopUtilization: s.eventLoopUtilization,
    dispatchLagP50Ms: percentile(lags, 50),
    dispatchLagP99Ms: percentile(lags, 99),
    dispatchLagMaxMs: maxOf(lags),
    dispatchLagSamples: lags.length,
    ...(firstWave ? { firstWaveRequests: firstWave.requests, firstWaveReleaseMs: firstWave.releaseMs } : {}),
    cpuShareOfCore: s.spanS > 0 ? s.cpuTimeMs / 1000 / s.spanS : 0,
    cpuCount: input.cpuCount,
    gcCount: s.gcPausesMs.length,
    gcTotalMs: s.gcPausesMs.reduce((a, b) => a + b, 0),
    gcMaxMs: maxOf(s.gcPausesMs),
    scales: { ...input.scales },
    thresholds: { ...limits },
  }
}

function maxOf(xs: readonly number[]): number {
  let max = 0
  for (const x of xs) if (x > max) max = x
  return max
}

export { formatMs }
