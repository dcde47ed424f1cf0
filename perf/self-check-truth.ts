/**
 * The ground truth of `npm run perf -- self-check`: how far the client's timestamps were from when
 * the simulator wrote each event. The simulator stamps each event just before it hands it to the
 * socket (src/sim/timing-record.ts); both processes stamp `performance.timeOrigin +
 * performance.now()`, the same system clock, and ITL errors are differences of differences, free of
 * any offset between the two.
 *
 * A run is **distorted** when its timestamps or its load were off:
 * - timestamps: the ITL error p99 is above max(5 ms, a quarter of the true median ITL), the
 *   client's inter-token latencies were off by more than the smallest change a benchmark would want
 *   to see;
 * - load: the server received requests later than due, p99 above a quarter of the true median
 *   end-to-end latency (within 5–50 ms). Due is the schedule in an open loop (without a
 *   concurrency limit here); in a closed loop, the k-th request after the first wave is due when
 *   the server wrote the last event of the k-th request to end.
 * docs/client-health.md states the same definition.
 */
import { percentile } from '../src/metrics/percentile.ts'

/** What the simulator recorded of one request. */
export interface SimTiming {
  requestId: string
  receivedAtMs: number
  eventSentAtMs: number[]
}

/** What the client recorded of one request. */
export interface ClientRecord {
  requestId: string
  success: boolean
  /** Seconds between the content chunks, as the client stamped them. */
  itlS: readonly number[]
  /** When the schedule said to send it, epoch ms (open loops). */
  intendedEpochMs?: number
}

export interface GroundTruth {
  /** Gaps compared. */
  gaps: number
  /** The simulator's median gap between events, ms. */
  trueItlMs: number
  /** |client gap − simulator gap|, ms. */
  itlErrorP50Ms: number
  itlErrorP99Ms: number
  /** max(5 ms, trueItlMs / 4). */
  limitMs: number
  /** The server's view of how late requests came, p99, ms; undefined without enough requests. */
  loadLatenessP99Ms?: number
  /** A quarter of the true median end-to-end latency, within 5–50 ms. */
  loadLimitMs: number
  timestampsDistorted: boolean
  loadDistorted: boolean
  distorted: boolean
}

/** The floor and share of the definition of a distorted run. */
export const DISTORTION_FLOOR_MS = 5
export const DISTORTION_SHARE = 0.25

/** Compares each successful request's gaps with the simulator's; undefined when no gap matched. */
export function groundTruth(
  records: readonly ClientRecord[],
  timings: readonly SimTiming[],
  run: { loop: 'open' | 'closed'; concurrency: number },
): GroundTruth | undefined {
  const byId = new Map(timings.map((t) => [t.requestId, t]))
  const errors: number[] = []
  const trueGaps: number[] = []
  for (const record of records) {
    const t = byId.get(record.requestId)
    if (!record.success || !t) continue
    const sent = t.eventSentAtMs
    // One client gap per pair of content events; a stream cut short compares what both have.
    const n = Math.min(record.itlS.length, sent.length - 1)
    for (let i = 0; i < n; i++) {
      const serverGapMs = sent[i + 1]! - sent[i]!
      trueGaps.push(serverGapMs)
      errors.push(Math.abs(record.itlS[i]! * 1000 - serverGapMs))
    }
  }
  if (errors.length === 0) return undefined
  const trueItlMs = percentile(trueGaps, 50)
  const limitMs = Math.max(DISTORTION_FLOOR_MS, trueItlMs * DISTORTION_SHARE)
  const p99 = percentile(errors, 99)
  const e2el = timings
    .filter((t) => t.eventSentAtMs.length > 0)
    .map((t) => t.eventSentAtMs.at(-1)! - t.receivedAtMs)
  const loadLimitMs = Math.min(50, Math.max(DISTORTION_FLOOR_MS, percentile(e2el, 50) * DISTORTION_SHARE))
  const lateness =
    run.loop === 'open' ? openLateness(records, byId) : closedLateness(timings, run.concurrency)
  const loadLatenessP99Ms = lateness.length >= MIN_LATE ? percentile(lateness, 99) : undefined
  const timestampsDistorted = p99 > limitMs
  const loadDistorted = loadLatenessP99Ms !== undefined && loadLatenessP99Ms > loadLimitMs
  return {
    gaps: errors.length,
    trueItlMs,
    itlErrorP50Ms: percentile(errors, 50),
    itlErrorP99Ms: p99,
    limitMs,
    ...(loadLatenessP99Ms !== undefined ? { loadLatenessP99Ms } : {}),
    loadLimitMs,
    timestampsDistorted,
    loadDistorted,
    distorted: timestampsDistorted || loadDistorted,
  }
}

// Fewer requests than this say nothing about a p99 of lateness.
const MIN_LATE = 20

// Open loop: received by the server minus due by the schedule.
function openLateness(records: readonly ClientRecord[], byId: ReadonlyMap<string, SimTiming>): number[] {
  const out: number[] = []
  for (const r of records) {
    const t = byId.get(r.requestId)
    if (t && r.intendedEpochMs !== undefined) out.push(Math.max(0, t.receivedAtMs - r.intendedEpochMs))
  }
  return out
}

// Closed loop: the k-th request received after the first wave took the slot of the k-th to end.
function closedLateness(timings: readonly SimTiming[], concurrency: number): number[] {
  const received = timings.map((t) => t.receivedAtMs).sort((a, b) => a - b)
  const ended = timings
    .filter((t) => t.eventSentAtMs.length > 0)
    .map((t) => t.eventSentAtMs.at(-1)!)
    .sort((a, b) => a - b)
  const out: number[] = []
  for (let k = 0; concurrency + k < received.length && k < ended.length; k++) {
    out.push(Math.max(0, received[concurrency + k]! - ended[k]!))
  }
  return out
}
