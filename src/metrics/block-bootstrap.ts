/**
 * Block bootstrap of one statistic: the interval of a statistic of one sample (an SLO's mean or
 * pNN), and the interval and one-sided p-value of its relative change between a baseline and a
 * current sample (a regression check). A sample is one or more runs, each cut into blocks of
 * correlated requests (`blocks.ts`); a resample draws runs with replacement, then blocks with
 * replacement within each drawn run (hierarchical), so the spread between runs of a multi-run
 * baseline is part of the interval; and the current run gets a run effect drawn from the baseline's
 * runs (`runEffectsOf`), since one run cannot show its own. Seeded; pure.
 */
import { createRng, type Rng } from '../rng.ts'
import type { BufferStatistic } from './fast-statistic.ts'

/** The values of one run and the block id (0 … B−1) of each value. */
export interface BlockedRun {
  values: ArrayLike<number>
  blocks: ArrayLike<number>
}

export interface BootstrapOptions {
  /** Resamples drawn. @default 1000 */
  resamples?: number
  /** Two-sided confidence level of the interval. @default 0.95 */
  confidence?: number
  /** Seed of the resampling, so a verdict is reproducible. @default 0 */
  seed?: number
}

export interface BootstrapInterval {
  /** The statistic of all values pooled. */
  estimate: number
  lower: number
  upper: number
  /** Values in the sample (all runs). */
  n: number
}

/** Which way is worse for a metric. */
export type Direction = 'lower-is-better' | 'higher-is-better'

export interface ChangeEstimate {
  baseline: number
  current: number
  /** `current / baseline − 1` (NaN when the baseline statistic is 0). */
  relative: number
  /** Percentile interval of `relative`. */
  interval: [number, number]
  /**
   * One-sided p-value of "not worse": the share of resamples whose change is not toward worse,
   * `(1 + #{change ≤ 0 toward worse}) / (resamples + 1)`.
   */
  pValue: number
  /** Values in the current sample. */
  n: number
  /** Values in the baseline sample (all runs). */
  baselineN: number
  /**
   * With k ≥ 2 baseline runs: the lowest and highest run effect applied to the current run, as
   * relative changes (`factor − 1`). More requests in the current run do not narrow this part.
   */
  runEffect?: [number, number]
}

export const DEFAULT_BOOTSTRAP = { resamples: 1000, confidence: 0.95, seed: 0 } as const

/** Interval of `statistic` over one sample of one or more runs. */
export function blockBootstrapInterval(
  runs: readonly BlockedRun[],
  statistic: BufferStatistic,
  options: BootstrapOptions = {},
): BootstrapInterval {
  const { resamples, confidence, seed } = resolve(options)
  const sample = prepare(runs, 'sample')
  const rng = createRng(seed)
  const stats = new Float64Array(resamples)
  for (let r = 0; r < resamples; r++) stats[r] = statistic(sample.buf, resampleInto(sample, rng))
  const tail = (1 - confidence) / 2
  return {
    estimate: statistic(sample.buf, copyAll(sample)),
    lower: quantileOfSorted(stats.sort(), tail),
    upper: quantileOfSorted(stats, 1 - tail),
    n: sample.total,
  }
}

/** Interval and one-sided p-value of the relative change of `statistic` from `baseline` to `current`. */
export function blockBootstrapChange(
  baseline: readonly BlockedRun[],
  current: readonly BlockedRun[],
  statistic: BufferStatistic,
  direction: Direction,
  options: BootstrapOptions = {},
): ChangeEstimate {
  const { resamples, confidence, seed } = resolve(options)
  const base = prepare(baseline, 'baseline')
  const cur = prepare(current, 'current')
  const rng = createRng(seed)
  const b0 = statistic(base.buf, copyAll(base))
  const runEffects = runEffectsOf(base, statistic, rng)
  const c0 = statistic(cur.buf, copyAll(cur))
  const worse = direction === 'lower-is-better' ? 1 : -1
  const rels = new Float64Array(resamples)
  let notWorse = 0
  let kept = 0
  for (let r = 0; r < resamples; r++) {
    const sb = statistic(base.buf, resampleInto(base, rng))
    let sc = statistic(cur.buf, resampleInto(cur, rng))
    // The current run is one run too: give it a run effect drawn from the baseline's runs.
    if (runEffects) sc *= runEffects[Math.floor(rng.next() * runEffects.length)]!
    if (sb === 0) continue
    const rel = sc / sb - 1
    rels[kept++] = rel
    if (worse * rel <= 0) notWorse++
  }
  const tail = (1 - confidence) / 2
  const sorted = rels.subarray(0, kept).sort()
  return {
    baseline: b0,
    current: c0,
    relative: b0 === 0 ? Number.NaN : c0 / b0 - 1,
    interval:
      kept === 0
        ? [Number.NaN, Number.NaN]
        : [quantileOfSorted(sorted, tail), quantileOfSorted(sorted, 1 - tail)],
    pValue: kept === 0 ? 1 : (1 + notWorse) / (kept + 1),
    n: cur.total,
    baselineN: base.total,
    ...(runEffects ? { runEffect: [Math.min(...runEffects) - 1, Math.max(...runEffects) - 1] } : {}),
  }
}

/**
 * With k ≥ 2 baseline runs, each run's statistic relative to the mean of the runs' statistics: how
 * much one run lands above or below the others (a busier machine, a restarted server). The current
 * run, one run itself, is multiplied by one of these per resample, so the test allows for it as
 * well as for the baseline's own spread. Undefined with one run (nothing to learn the spread from).
 *
 * The runs' statistics also differ by each run's own sampling noise, which the resampling of blocks
 * already counts: taken whole, a baseline of three 96-request runs whose means differed only by
 * that noise kept every unchanged run of it undecided at a 10 % tolerance. So the deviations are
 * shrunk to the spread between runs that their noise does not explain (the method of moments of a
 * random-effects model: between-run variance = observed variance − mean within-run variance, at
 * least 0), each run's within-run variance from a block bootstrap of that run alone.
 */
function runEffectsOf(sample: Prepared, statistic: BufferStatistic, rng: Rng): Float64Array | undefined {
  const k = sample.runs.length
  if (k < 2) return undefined
  const stats = sample.runs.map((run) => {
    sample.buf.set(run.values)
    return statistic(sample.buf, run.values.length)
  })
  const mean = stats.reduce((a, b) => a + b, 0) / k
  if (!(mean !== 0 && stats.every(Number.isFinite))) return undefined
  const deviations = stats.map((x) => x / mean - 1)
  const observed = deviations.reduce((a, d) => a + d * d, 0) / (k - 1)
  const within = sample.runs.reduce((a, run) => a + withinRunVariance(run, statistic, sample.buf, rng), 0) / k
  const between = Math.max(0, observed - within / (mean * mean))
  const shrink = observed > 0 ? Math.sqrt(between / observed) : 0
  // Deviations scaled by sqrt(k / (k − 1)): k runs spread less around their own mean than runs do.
  const inflate = Math.sqrt(k / (k - 1))
  return Float64Array.from(deviations, (d) => Math.max(0, 1 + d * inflate * shrink))
}

/** Resamples of one run behind its within-run variance: enough for a variance, cheap beside the test. */
const WITHIN_RESAMPLES = 200

// The variance of a run's statistic under the block bootstrap of that run alone.
function withinRunVariance(
  run: Prepared['runs'][number],
  statistic: BufferStatistic,
  buf: Float64Array,
  rng: Rng,
): number {
  const one: Prepared = { runs: [run], total: run.values.length, buf }
  let sum = 0
  let sumSq = 0
  for (let r = 0; r < WITHIN_RESAMPLES; r++) {
    const x = statistic(buf, resampleInto(one, rng))
    sum += x
    sumSq += x * x
  }
  const m = sum / WITHIN_RESAMPLES
  return Math.max(0, (sumSq - WITHIN_RESAMPLES * m * m) / (WITHIN_RESAMPLES - 1))
}

interface Prepared {
  /** Per run: values grouped by block, and where each block starts (B + 1 offsets). */
  runs: Array<{ values: Float64Array; offsets: Int32Array }>
  total: number
  /** Resample buffer, large enough for any resample. */
  buf: Float64Array
}

function prepare(runs: readonly BlockedRun[], name: string): Prepared {
  const prepared: Prepared['runs'] = []
  let total = 0
  let largest = 0
  for (const run of runs) {
    const n = run.values.length
    if (n === 0) continue
    if (run.blocks.length !== n)
      throw new RangeError(`${name}: ${n} values but ${run.blocks.length} block ids`)
    let blockCount = 0
    for (let i = 0; i < n; i++) blockCount = Math.max(blockCount, run.blocks[i]! + 1)
    const counts = new Int32Array(blockCount + 1)
    for (let i = 0; i < n; i++) counts[run.blocks[i]! + 1]!++
    for (let b = 0; b < blockCount; b++) counts[b + 1]! += counts[b]!
    const offsets = counts.slice()
    const values = new Float64Array(n)
    const fill = counts.slice(0, blockCount)
    for (let i = 0; i < n; i++) values[fill[run.blocks[i]!]!++] = run.values[i]!
    // Empty blocks (ids never used) would be drawn as nothing; drop them.
    const nonEmpty = [0]
    for (let b = 0; b < blockCount; b++) if (offsets[b + 1]! > offsets[b]!) nonEmpty.push(offsets[b + 1]!)
    prepared.push({ values, offsets: Int32Array.from(nonEmpty) })
    total += n
    largest = Math.max(largest, maxBlock(Int32Array.from(nonEmpty)) * (nonEmpty.length - 1))
  }
  if (prepared.length === 0) throw new RangeError(`${name} sample is empty`)
  return { runs: prepared, total, buf: new Float64Array(Math.max(total, largest * prepared.length)) }
}

// Draws runs with replacement, then blocks with replacement within each; returns the length.
function resampleInto(sample: Prepared, rng: Rng): number {
  const { runs, buf } = sample
  let len = 0
  for (let k = 0; k < runs.length; k++) {
    const run = runs.length === 1 ? runs[0]! : runs[Math.floor(rng.next() * runs.length)]!
    const blocks = run.offsets.length - 1
    for (let b = 0; b < blocks; b++) {
      const pick = Math.floor(rng.next() * blocks)
      const from = run.offsets[pick]!
      const to = run.offsets[pick + 1]!
      // A plain loop: blocks are short, and subarray() would allocate per block.
      for (let i = from; i < to; i++) buf[len++] = run.values[i]!
    }
  }
  return len
}

function copyAll(sample: Prepared): number {
  let len = 0
  for (const run of sample.runs) {
    sample.buf.set(run.values, len)
    len += run.values.length
  }
  return len
}

function maxBlock(offsets: Int32Array): number {
  let m = 0
  for (let b = 0; b + 1 < offsets.length; b++) m = Math.max(m, offsets[b + 1]! - offsets[b]!)
  return m
}

// numpy 'linear' quantile of an ascending array.
function quantileOfSorted(xs: Float64Array, q: number): number {
  if (xs.length === 0) return Number.NaN
  const pos = q * (xs.length - 1)
  const lo = Math.floor(pos)
  const hi = Math.min(lo + 1, xs.length - 1)
  return xs[lo]! + (xs[hi]! - xs[lo]!) * (pos - lo)
}

function resolve(options: BootstrapOptions): Required<BootstrapOptions> {
  const resamples = options.resamples ?? DEFAULT_BOOTSTRAP.resamples
  const confidence = options.confidence ?? DEFAULT_BOOTSTRAP.confidence
  if (!(Number.isInteger(resamples) && resamples >= 10))
    throw new RangeError(`resamples must be an integer ≥ 10 (got ${resamples})`)
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be in (0, 1) (got ${confidence})`)
  return { resamples, confidence, seed: options.seed ?? DEFAULT_BOOTSTRAP.seed }
}
