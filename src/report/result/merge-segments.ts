/**
 * `servebench merge`: the segment files of one benchmark (`--segment i/n` on several processes or
 * machines) joined into one result, as if one process had sent the whole schedule. Every metric is
 * recomputed from the union of the per-request records (percentiles are never averaged); the
 * records are laid on one time line by each segment's wall-clock start, whose spread is reported as
 * the start skew. Pure: the CLI reads and writes the files.
 */
import type { RequestRecord } from '../../config/records.ts'
import { ConfigError, type ConfigIssue } from '../../errors.ts'
import { calculateMetrics } from '../../metrics/calculate.ts'
import { type IntendedFamily, intendedDelaysS, intendedStatistics } from '../../metrics/intended.ts'
import { computeSteadyState } from '../../metrics/steady-state.ts'
import { clientResultKeys } from './client-keys.ts'
import { steadyStateJson } from './extra-keys.ts'
import { mergeShares } from './merge-shares.ts'
import { buildResult, type ResultSetup } from './result-json.ts'
import type { BenchResult } from './result-types.ts'
import { SEGMENT_FORMAT, type SegmentFile, type SegmentMetricsOptions } from './segment-file.ts'

/** A segment file as read, with the path it is named by in errors. */
export interface ReadSegment {
  path: string
  value: unknown
}

/** The merged run. */
export interface MergedSegments {
  result: BenchResult
  /** In schedule order, times in seconds from the earliest segment start. */
  records: RequestRecord[]
  /** Latest segment start minus the earliest, ms (wall clocks: includes the machines' clock offsets). */
  startSkewMs: number
  /** Indexes of the segments whose client was saturated. */
  saturated: number[]
  interrupted: boolean
  /** The metrics options the segments were run with (`--percentile-metrics`, `--goodput`, …). */
  options: SegmentMetricsOptions
}

/**
 * Checks that the files are the segments of one benchmark (a segment file each, one fingerprint,
 * one count, every index once) and merges them; every problem is reported at once, naming the file.
 */
export function mergeSegments(files: readonly ReadSegment[]): MergedSegments {
  const segments = checkSegments(files)
  const origin = Math.min(...segments.map((s) => s.startEpochMs))
  const shares = segments.map((segment) => ({
    shiftS: (segment.startEpochMs - origin) / 1000,
    records: segment.records,
  }))
  const endS = Math.max(0, ...segments.map((s, i) => shares[i]!.shiftS + s.durationS))
  // Schedule order, as one process would have dispatched them.
  const records = mergeShares(shares, (r) => r.scheduleIndex)
  const plain: RequestRecord[] = records.map(({ scheduleIndex: _, ...r }) => r)
  const first = segments[0]!
  const options = first.metrics
  const metrics = calculateMetrics(plain, {
    durationS: endS,
    ...(options.goodput ? { goodput: options.goodput } : {}),
    percentileMetrics: options.percentileMetrics,
    metricPercentiles: options.metricPercentiles,
    hasTokenizer: options.hasTokenizer,
    ...(options.maxConcurrency ? { maxConcurrency: options.maxConcurrency } : {}),
    requestRateFinite: options.requestRateFinite,
  })
  const fromInf = (x: number | 'inf'): number => (x === 'inf' ? Number.POSITIVE_INFINITY : x)
  const setup: ResultSetup = {
    ...first.setup,
    requestRate: fromInf(first.setup.requestRate),
    burstiness: fromInf(first.setup.burstiness),
  }
  const result = buildResult(setup, metrics, plain)
  if (options.steadyState && options.maxConcurrency) {
    // The window of the whole run: the segments' concurrency shares add up to --max-concurrency.
    result.steady_state = steadyStateJson(
      computeSteadyState(plain, {
        targetConcurrency: options.maxConcurrency,
        ...options.steadyState,
        totalDurationS: endS,
        percentiles: options.metricPercentiles,
        isPooling: false,
      }),
    )
  }
  const families: IntendedFamily[] = options.hasTokenizer
    ? ['intended_ttft', 'intended_e2el']
    : ['intended_e2el']
  if (options.openLoop) {
    const keys = clientResultKeys({
      intended: {
        statistics: intendedStatistics(plain, { metricPercentiles: options.metricPercentiles, families }),
        delaysS: intendedDelaysS(plain),
      },
    })
    for (const [key, value] of keys) result[key] = value
  }
  const starts = segments.map((s) => s.startEpochMs)
  const startSkewMs = Math.max(...starts) - origin
  const saturated = segments.filter((s) => s.clientHealth?.saturated).map((s) => s.index)
  result.segments = {
    count: first.count,
    fingerprint: first.fingerprint,
    start_skew_ms: startSkewMs,
    start_epoch_ms: starts,
    ...(saturated.length > 0 ? { saturated } : {}),
  }
  const interrupted = segments.some((s) => s.interrupted)
  if (interrupted) result.interrupted = true
  return {
    result,
    records: plain,
    startSkewMs,
    saturated,
    interrupted,
    options,
  }
}

/** The segments in index order, or a ConfigError naming each file and index at fault. */
function checkSegments(files: readonly ReadSegment[]): SegmentFile[] {
  const issues: ConfigIssue[] = []
  if (files.length === 0) issues.push({ path: 'merge', message: 'needs the segment files to merge' })
  const read: Array<{ path: string; segment: SegmentFile }> = []
  for (const { path, value } of files) {
    const v = value as Partial<SegmentFile> | null
    if (typeof v !== 'object' || v === null || v.format !== SEGMENT_FORMAT || !Array.isArray(v.records)) {
      issues.push({
        path,
        message: `is not a segment file (written by servebench serve --segment i/n, format "${SEGMENT_FORMAT}")`,
      })
    } else read.push({ path, segment: v as SegmentFile })
  }
  const first = read[0]
  if (first) {
    const { fingerprint, count } = first.segment
    for (const { path, segment } of read.slice(1)) {
      if (segment.fingerprint !== fingerprint) {
        issues.push({
          path,
          message: `belongs to another benchmark: configuration fingerprint ${segment.fingerprint}, but ${first.path} has ${fingerprint} (same flags, seed and dataset on every segment)`,
        })
      } else if (segment.count !== count) {
        issues.push({
          path,
          message: `is segment ${segment.index}/${segment.count}, but ${first.path} is one of ${count}`,
        })
      }
    }
    const byIndex = new Map<number, string[]>()
    for (const { path, segment } of read)
      byIndex.set(segment.index, [...(byIndex.get(segment.index) ?? []), path])
    for (let i = 0; i < count; i++) {
      const paths = byIndex.get(i) ?? []
      if (paths.length === 0) {
        issues.push({ path: `segment ${i}/${count}`, message: 'is missing: merge needs every segment once' })
      } else if (paths.length > 1) {
        issues.push({
          path: `segment ${i}/${count}`,
          message: `is given ${paths.length} times: ${paths.join(', ')}`,
        })
      }
    }
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return read.map((r) => r.segment).sort((a, b) => a.index - b.index)
}
