/**
 * The segment file of `--segment i/n`: what one process measured of its share of a schedule,
 * enough for `servebench merge` to recompute every metric over the union of the segments. Pure:
 * the CLI writes it with write.ts. Times are kept relative to the segment's start, and the start
 * is kept on the wall clock, so segments from several machines share one time line.
 */
import type { GoodputConfig, PercentileMetric } from '../../config/bench-config.ts'
import type { RequestRecord } from '../../config/records.ts'
import type { ResultSetup } from './result-json.ts'

/** The format tag and version of a segment file. */
export const SEGMENT_FORMAT = 'servebench-segment/1'

/** How the merged metrics are computed: the options of the run, the same in every segment. */
export interface SegmentMetricsOptions {
  percentileMetrics: PercentileMetric[]
  metricPercentiles: number[]
  goodput?: GoodputConfig
  hasTokenizer: boolean
  maxConcurrency?: number
  requestRateFinite: boolean
  /** An open loop has intended send times: the merged result gets the intended-latency keys. */
  openLoop: boolean
  /**
   * Rust's steady-state window settings, on a closed loop (`--max-concurrency` at rate inf, no
   * ramp) with steady state on: the merged result gets `steady_state`, found on all the records.
   */
  steadyState?: { threshold: number; minWindowS?: number }
}

/** One segment file, as JSON. Non-finite numbers are strings (`"inf"`), as in result files. */
export interface SegmentFile {
  format: typeof SEGMENT_FORMAT
  /** 0-based. */
  index: number
  count: number
  /** `configFingerprint` of the run: segments of one benchmark share it. */
  fingerprint: string
  /** Wall clock (Unix ms) when this segment's timed run started. */
  startEpochMs: number
  /** `--start-at`, when given. */
  startAtEpochMs?: number
  /** From this segment's start to its last request's end, seconds. */
  durationS: number
  interrupted: boolean
  /** The result's setup keys (rate and burstiness as `"inf"` when infinite). */
  setup: Omit<ResultSetup, 'requestRate' | 'burstiness'> & {
    requestRate: number | 'inf'
    burstiness: number | 'inf'
  }
  metrics: SegmentMetricsOptions
  /** Whether this segment's client was saturated (its self-check), with the reasons. */
  clientHealth?: { saturated: boolean; reasons: string[] }
  /** This segment's requests in dispatch order, each with its index in the whole schedule. */
  records: Array<SegmentRecord>
}

/** A request record whose times (`startTimeS`, `arrivalTimeS`, `intendedTimeS`) count from the segment's start. */
export type SegmentRecord = RequestRecord & { scheduleIndex: number }

/** What one segmented run gives {@link buildSegmentFile}. */
export interface SegmentRun {
  index: number
  count: number
  fingerprint: string
  clock: { startEpochMs: number; startS: number; endS: number }
  startAtEpochMs?: number
  interrupted: boolean
  setup: ResultSetup
  metrics: SegmentMetricsOptions
  clientHealth?: { saturated: boolean; reasons: readonly string[] }
  records: readonly RequestRecord[]
  scheduleIndexes: readonly number[]
}

/** The segment file of one run: its records moved to times from its start. */
export function buildSegmentFile(run: SegmentRun): SegmentFile {
  const t0 = run.clock.startS
  const records = run.records.map((r, i): SegmentRecord => {
    const out: SegmentRecord = {
      ...r,
      itlS: [...r.itlS],
      startTimeS: r.startTimeS - t0,
      arrivalTimeS: r.arrivalTimeS - t0,
      scheduleIndex: run.scheduleIndexes[i]!,
    }
    if (r.intendedTimeS !== undefined) out.intendedTimeS = r.intendedTimeS - t0
    return out
  })
  const inf = (x: number): number | 'inf' => (Number.isFinite(x) ? x : 'inf')
  return {
    format: SEGMENT_FORMAT,
    index: run.index,
    count: run.count,
    fingerprint: run.fingerprint,
    startEpochMs: run.clock.startEpochMs,
    ...(run.startAtEpochMs !== undefined ? { startAtEpochMs: run.startAtEpochMs } : {}),
    durationS: run.clock.endS - t0,
    interrupted: run.interrupted,
    setup: { ...run.setup, requestRate: inf(run.setup.requestRate), burstiness: inf(run.setup.burstiness) },
    metrics: run.metrics,
    ...(run.clientHealth
      ? { clientHealth: { saturated: run.clientHealth.saturated, reasons: [...run.clientHealth.reasons] } }
      : {}),
    records,
  }
}
