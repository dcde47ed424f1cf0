/**
 * The client self-check in words: a reason per rule that fired, a note per rule that lacked the
 * evidence, the remedy that fits, and the console line. Pure. See docs/client-health.md.
 */
import type { ClientHealthPolicy, ClientHealthRule, ClientHealthSummary } from './client-health.ts'

const READING_NAMES = { itl: 'ITL', ttft: 'TTFT', decode: 'decode time', e2el: 'latency' } as const

/** Below this busy share a late loop was not late from its own work: other processes held the CPU. */
const IDLE_LOOP_SHARE = 0.5

/** The sentence of a rule that fired, e.g. `event-loop delay p99 62 ms (limit 12 ms for a median ITL of 48 ms): …`. */
export function judgedReason(rule: ClientHealthRule, s: ClientHealthSummary): string {
  const value = formatMs(rule.value)
  switch (rule.rule) {
    case 'event-loop-delay':
      return `event-loop delay p99 ${value} (limit ${formatMs(rule.limit)}${scaleText(s, 'reading')}): the client, not the server, set these latencies`
    case 'dispatch-lateness':
      return s.loop === 'closed'
        ? `dispatch lag p99 ${value} after the first wave (limit ${formatMs(rule.limit)}${scaleText(s, 'sending')}): requests started late after a slot freed, so the server got less load than asked`
        : `dispatch lag p99 ${value} (limit ${formatMs(rule.limit)}${scaleText(s, 'sending')}): requests left later than scheduled, so the server got less load than asked`
    case 'event-loop-busy':
      return `event loop busy ${formatShare(rule.value)} of the time (limit ${formatShare(rule.limit)}): the client had no time to spare for reading responses`
    case 'gc-pause':
      return `GC pause ${value} (limit ${formatMs(rule.limit)}): garbage collection stopped the client mid-run`
  }
}

/** Why a rule did not judge, e.g. `event-loop delay not judged: 0.02 s of run and 3 samples (it needs 0.25 s and 20)`. */
export function unjudgedNote(
  rule: ClientHealthRule,
  policy: ClientHealthPolicy,
  s: ClientHealthSummary,
): string {
  const span = `${formatSeconds(s.durationS)} of run${s.loop === 'closed' && s.firstWaveRequests !== undefined ? ' after the first wave' : ''}`
  switch (rule.rule) {
    case 'event-loop-delay':
      return `event-loop delay not judged: ${span} and ${s.eventLoopDelaySamples} samples (it needs ${policy.minSpanS} s and ${policy.minDelaySamples})`
    case 'event-loop-busy':
      return `event-loop busy share not judged: ${span} (it needs ${policy.minBusySpanS} s)`
    case 'dispatch-lateness':
      return `dispatch lag not judged: ${s.dispatchLagSamples} request${s.dispatchLagSamples === 1 ? '' : 's'}${s.loop === 'closed' ? ' started after the first wave' : ''} (it needs ${policy.minLateRequests})`
    case 'gc-pause':
      return `GC pauses not judged: ${span} (it needs ${policy.minSpanS} s)`
  }
}

/** The busy share each reading loop is given by the advice: the headroom `auto` leaves. */
const ADVISED_BUSY_SHARE = 0.5

/**
 * What to change when rules fired: a loop late although mostly idle waited for the CPU (a quieter
 * machine); a busy reading loop needs the `--client-threads` that would have left each about half
 * idle (its busy share scaled, as `auto` aims), while the machine's cores allow it, else a smaller
 * share of the run per process (`--segment`); a late or collecting main thread the same.
 */
export function remedyOf(fired: readonly ClientHealthRule[], s: ClientHealthSummary): string {
  const threads = s.threads?.length || 1
  const remedies = new Set<string>()
  const loops = s.threads && s.threads.length > 0 ? s.threads : [s]
  const busiest = Math.max(0, ...loops.map((l) => l.eventLoopUtilization))
  const needed = Math.max(threads + 1, Math.ceil((threads * busiest) / ADVISED_BUSY_SHARE))
  // A core each, one left for the main thread.
  const room = Math.max(1, s.cpuCount - 1)
  const moreThreads = `--client-threads ${needed} (read the streams on more cores: the busiest loop was busy ${formatShare(busiest)} of the run)`
  const segments = `a smaller concurrency per process (--segment splits the run over processes or machines${needed > room ? `: it needs about ${needed} threads, more than the ${room} this machine's cores leave` : ''})`
  for (const rule of fired) {
    const loop = rule.thread === 'main' ? s : (s.threads?.[rule.thread] ?? s)
    if (
      rule.rule !== 'gc-pause' &&
      rule.rule !== 'event-loop-busy' &&
      loop.eventLoopUtilization < IDLE_LOOP_SHARE
    ) {
      remedies.add(
        `a quieter machine (the event loop was busy only ${formatShare(loop.eventLoopUtilization)} of the time, so other processes held the CPU)`,
      )
    } else if (rule.rule !== 'gc-pause' && (rule.thread !== 'main' || threads === 1) && needed <= room) {
      remedies.add(moreThreads)
    } else {
      remedies.add(segments)
    }
  }
  return [...remedies].join(', or ')
}

/**
 * The console line printed after the result table:
 * `Client self-check: ok — event-loop delay p99 1.2 ms (limit 5 ms), busy 23%, dispatch lag p99 0.4 ms (limit 12 ms), GC 12 ms`,
 * `Client self-check: SATURATED — <reasons>. Remedy: <remedy>`, `… too short to judge — …` or `… not judged — no request succeeded`.
 */
export function formatClientHealthLine(s: ClientHealthSummary): string {
  if (s.state === 'saturated' || s.saturated) {
    return `Client self-check: SATURATED — ${s.reasons.join('; ')}${s.remedy ? `. Remedy: ${s.remedy}` : ''}\n`
  }
  if (s.state === 'no-data') return 'Client self-check: not judged — no request succeeded\n'
  if (s.state === 'too-short') {
    // The reading rules decide it; the others' notes are in `unjudged`.
    const reading = s.unjudged.filter((note) => note.includes('event-loop delay not judged'))
    return `Client self-check: too short to judge — ${(reading.length > 0 ? reading : s.unjudged).join('; ')}\n`
  }
  const reading = s.threads && s.threads.length > 0 ? worstThread(s.threads) : s
  const figures = [
    `event-loop delay p99 ${formatMs(reading.eventLoopDelayP99Ms)} (limit ${formatMs(s.thresholds.eventLoopDelayP99Ms)})`,
    `busy ${formatShare(reading.eventLoopUtilization)}`,
    s.dispatchLagSamples > 0
      ? `dispatch lag p99 ${formatMs(s.dispatchLagP99Ms)} (limit ${formatMs(s.thresholds.dispatchLagP99Ms)})`
      : 'dispatch lag not judged',
    `GC ${formatMs(s.gcTotalMs)}`,
  ]
  if (s.firstWaveReleaseMs !== undefined && s.firstWaveRequests !== undefined)
    figures.push(`first wave of ${s.firstWaveRequests} released in ${formatMs(s.firstWaveReleaseMs)}`)
  return `Client self-check: ok — ${figures.join(', ')}\n`
}

/** `0.42` → `0.4 ms`, `38` → `38 ms`, `120.4` → `120 ms`: one decimal below 100 ms. */
export function formatMs(ms: number): string {
  return `${ms >= 100 || Number.isInteger(ms) ? Math.round(ms) : ms.toFixed(1)} ms`
}

/** `0.234` → `23%`. */
export function formatShare(share: number): string {
  return `${Math.round(share * 100)}%`
}

function formatSeconds(s: number): string {
  return `${s < 1 ? s.toFixed(3) : s.toFixed(1)} s`
}

// ` for a median ITL of 2.0 ms`: what the limit was scaled from.
function scaleText(s: ClientHealthSummary, which: 'reading' | 'sending'): string {
  const ms = which === 'reading' ? s.scales.readingMs : s.scales.sendingMs
  if (ms === undefined) return ''
  const metric = which === 'reading' ? READING_NAMES[s.scales.readingMetric ?? 'e2el'] : 'latency'
  return ` for a median ${metric} of ${formatMs(ms)}`
}

function worstThread(threads: readonly ClientHealthSummary[]): ClientHealthSummary {
  return threads.reduce((a, b) => (b.eventLoopDelayP99Ms > a.eventLoopDelayP99Ms ? b : a))
}
