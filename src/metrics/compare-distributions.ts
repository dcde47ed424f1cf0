import { createRng } from '../rng.ts'

/**
 * Statistical comparison of two samples of one per-request metric (a baseline run and the current
 * run): a percentile-bootstrap confidence interval of the statistic's difference, and the
 * Mann–Whitney U test. Pure functions over plain arrays; used by `toMatchBaseline`.
 */

/** Reduces a sample to one number: a mean, a median, a percentile. */
export type Statistic = (xs: readonly number[]) => number

export interface BootstrapOptions {
  /** Resamples drawn from each side. @default 1000 */
  resamples?: number
  /** Two-sided confidence level of the interval. @default 0.95 */
  confidence?: number
  /** Seed of the resampling, so a verdict is reproducible. @default 0 */
  seed?: number
}

export interface BootstrapDifference {
  baseline: number
  current: number
  /** `current - baseline`. */
  diff: number
  /** `current / baseline - 1`; `NaN` when the baseline statistic is 0. */
  relative: number
  /** Percentile interval of `diff`. */
  ci: [number, number]
  /** Percentile interval of `relative`. */
  relativeCi: [number, number]
}

/** `greater`: `x` tends to be larger than `y` (scipy's convention). */
export type Alternative = 'two-sided' | 'greater' | 'less'

export interface MannWhitneyResult {
  /** U statistic of `x`. */
  u: number
  /** Normal approximation with tie and continuity correction. */
  z: number
  pValue: number
}

/** Which way is worse for a metric. */
export type Direction = 'lower-is-better' | 'higher-is-better'

export interface CompareOptions extends BootstrapOptions {
  direction: Direction
  /** Relative change tolerated before a regression is possible, e.g. 0.1 for 10 %. */
  tolerance: number
  /** Significance level of the test. @default 0.05 */
  alpha?: number
  /** Which evidence is needed: both, or one of the two tests. @default 'both' */
  test?: 'both' | 'bootstrap' | 'mann-whitney'
}

export interface Comparison extends BootstrapDifference {
  /** One-sided Mann–Whitney p-value in the direction of a regression. */
  pValue: number
  /** The point change is worse than the tolerance. */
  pastTolerance: boolean
  /** The chosen test(s) say the change toward worse is not noise. */
  significant: boolean
  /** `pastTolerance && significant`: the verdict fails. */
  regressed: boolean
}

/** Percentile-bootstrap interval of `statistic(current) - statistic(baseline)`. */
export function bootstrapDifference(
  baseline: readonly number[],
  current: readonly number[],
  statistic: Statistic,
  options: BootstrapOptions = {},
): BootstrapDifference {
  requireSamples(baseline, 'baseline')
  requireSamples(current, 'current')
  const resamples = options.resamples ?? 1000
  const confidence = options.confidence ?? 0.95
  if (!(Number.isInteger(resamples) && resamples >= 10))
    throw new RangeError(`resamples must be an integer ≥ 10 (got ${resamples})`)
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be in (0, 1) (got ${confidence})`)
  const rng = createRng(options.seed ?? 0)
  const b = statistic(baseline)
  const c = statistic(current)
  const diffs = new Float64Array(resamples)
  const rels = new Float64Array(resamples)
  const bufB = new Array<number>(baseline.length)
  const bufC = new Array<number>(current.length)
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < baseline.length; i++) bufB[i] = baseline[Math.floor(rng.next() * baseline.length)]!
    for (let i = 0; i < current.length; i++) bufC[i] = current[Math.floor(rng.next() * current.length)]!
    const sb = statistic(bufB)
    const sc = statistic(bufC)
    diffs[r] = sc - sb
    rels[r] = sb === 0 ? Number.NaN : sc / sb - 1
  }
  const lo = (1 - confidence) / 2
  return {
    baseline: b,
    current: c,
    diff: c - b,
    relative: b === 0 ? Number.NaN : c / b - 1,
    ci: [quantile(diffs, lo), quantile(diffs, 1 - lo)],
    relativeCi: [quantile(rels, lo), quantile(rels, 1 - lo)],
  }
}

/** Mann–Whitney U test of `x` against `y`, normal approximation (scipy `method='asymptotic'`). */
export function mannWhitneyU(
  x: readonly number[],
  y: readonly number[],
  alternative: Alternative = 'two-sided',
): MannWhitneyResult {
  requireSamples(x, 'x')
  requireSamples(y, 'y')
  const n1 = x.length
  const n2 = y.length
  const n = n1 + n2
  const all = [...x.map((v) => ({ v, fromX: true })), ...y.map((v) => ({ v, fromX: false }))].sort(
    (a, b) => a.v - b.v,
  )
  let rankSumX = 0
  let tieTerm = 0
  for (let i = 0; i < n; ) {
    let j = i
    while (j + 1 < n && all[j + 1]!.v === all[i]!.v) j++
    const rank = (i + j + 2) / 2 // average of 1-based ranks i+1 … j+1
    const t = j - i + 1
    tieTerm += t ** 3 - t
    for (let k = i; k <= j; k++) if (all[k]!.fromX) rankSumX += rank
    i = j + 1
  }
  const u = rankSumX - (n1 * (n1 + 1)) / 2
  const mu = (n1 * n2) / 2
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))))
  if (sigma === 0) return { u, z: 0, pValue: 1 }
  const greaterZ = (u - mu - 0.5) / sigma
  const lessZ = (u - mu + 0.5) / sigma
  if (alternative === 'greater') return { u, z: greaterZ, pValue: normalSf(greaterZ) }
  if (alternative === 'less') return { u, z: lessZ, pValue: normalSf(-lessZ) }
  // Two-sided: continuity correction toward the mean, as scipy does.
  const z = (u - mu - Math.sign(u - mu) * 0.5) / sigma
  return { u, z, pValue: Math.min(1, 2 * normalSf(Math.abs(z))) }
}

/**
 * The verdict of one metric: a regression needs the point change past the tolerance AND
 * statistical evidence, so a run that is only noisy passes.
 */
export function compareSamples(
  baseline: readonly number[],
  current: readonly number[],
  statistic: Statistic,
  options: CompareOptions,
): Comparison {
  if (!(options.tolerance >= 0)) throw new RangeError(`tolerance must be ≥ 0 (got ${options.tolerance})`)
  const alpha = options.alpha ?? 0.05
  const test = options.test ?? 'both'
  const boot = bootstrapDifference(baseline, current, statistic, options)
  const worse = options.direction === 'lower-is-better' ? 1 : -1
  const mw = mannWhitneyU(current, baseline, worse === 1 ? 'greater' : 'less')
  const change = worse * boot.relative
  const pastTolerance = Number.isFinite(change) ? change > options.tolerance : worse * boot.diff > 0
  const ciWorse = worse === 1 ? boot.ci[0] > 0 : boot.ci[1] < 0
  const mwWorse = mw.pValue < alpha
  const significant = test === 'both' ? ciWorse && mwWorse : test === 'bootstrap' ? ciWorse : mwWorse
  return { ...boot, pValue: mw.pValue, pastTolerance, significant, regressed: pastTolerance && significant }
}

function requireSamples(xs: readonly number[], name: string): void {
  if (xs.length === 0) throw new RangeError(`${name} sample is empty`)
}

// numpy 'linear' quantile of unsorted values (sorts a copy); NaNs are dropped.
function quantile(values: Float64Array, q: number): number {
  const xs = values.filter((v) => !Number.isNaN(v)).sort()
  if (xs.length === 0) return Number.NaN
  const pos = q * (xs.length - 1)
  const lo = Math.floor(pos)
  const hi = Math.min(lo + 1, xs.length - 1)
  return xs[lo]! + (xs[hi]! - xs[lo]!) * (pos - lo)
}

/** Upper tail of the standard normal. */
function normalSf(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2)
}

function erfc(x: number): number {
  // Numerical Recipes erfcc: Chebyshev fit, fractional error < 1.2e-7 everywhere.
  const z = Math.abs(x)
  const t = 1 / (1 + 0.5 * z)
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    )
  return x >= 0 ? r : 2 - r
}
