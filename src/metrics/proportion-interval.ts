/**
 * Wilson score interval of a proportion (k of n requests met the goodput SLO, or failed), and how
 * many requests would decide it against a limit. Wilson rather than the normal ("Wald") interval
 * because it stays inside [0, 1] and keeps its coverage near 0 and 1, where error rates live. Pure.
 */
import { MAX_NEEDED_REQUESTS, smallestSatisfying } from './quantile-interval.ts'

export interface ProportionInterval {
  /** `k / n`. */
  estimate: number
  lower: number
  upper: number
}

/** Wilson score interval of k successes in n trials at two-sided confidence c (default 0.95). */
export function proportionInterval(k: number, n: number, confidence = 0.95): ProportionInterval {
  if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`trials must be an integer ≥ 1 (got ${n})`)
  if (!(Number.isInteger(k) && k >= 0 && k <= n))
    throw new RangeError(`successes must be an integer in [0, ${n}] (got ${k})`)
  const [lower, upper] = wilson(k / n, n, normalQuantile(1 - (1 - confidence) / 2))
  // Exact ends at 0 and n (the formula gives them up to rounding).
  return { estimate: k / n, lower: k === 0 ? 0 : lower, upper: k === n ? 1 : upper }
}

/**
 * About how many requests would decide the proportion against `limit`, assuming the observed
 * fraction `k / n` stays: the smallest m whose Wilson interval excludes the limit. Infinity when
 * the fraction equals the limit (or beyond {@link MAX_NEEDED_REQUESTS}).
 */
export function proportionRequestsNeeded(k: number, n: number, limit: number, confidence = 0.95): number {
  const phat = k / n
  if (phat === limit || n === 0) return Number.POSITIVE_INFINITY
  const z = normalQuantile(1 - (1 - confidence) / 2)
  const excludes = (m: number): boolean => {
    const [lo, hi] = wilson(phat, m, z)
    return phat < limit ? hi < limit : lo > limit
  }
  const m = smallestSatisfying(excludes)
  return m > MAX_NEEDED_REQUESTS ? Number.POSITIVE_INFINITY : m
}

/** Standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`probability must be in (0, 1) (got ${p})`)
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const lowTail = 0.02425
  let x: number
  if (p < lowTail) {
    const q = Math.sqrt(-2 * Math.log(p))
    x =
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
  } else if (p <= 1 - lowTail) {
    const q = p - 0.5
    const r = q * q
    x =
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p))
    x =
      -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
  }
  return x
}

/** Upper tail of the standard normal, `P(Z > z)`. */
export function normalSf(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2)
}

function wilson(phat: number, n: number, z: number): [number, number] {
  const z2 = z * z
  const denom = 1 + z2 / n
  const centre = (phat + z2 / (2 * n)) / denom
  const half = (z * Math.sqrt((phat * (1 - phat)) / n + z2 / (4 * n * n))) / denom
  return [Math.max(0, centre - half), Math.min(1, centre + half)]
}

// Complementary error function: Numerical Recipes' erfcc (Chebyshev fit, relative error < 1.2e-7),
// computed directly so the tail keeps its digits.
function erfc(x: number): number {
  const z = Math.abs(x)
  const t = 1 / (1 + 0.5 * z)
  const poly =
    -1.26551223 +
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
                        t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
  const r = t * Math.exp(-z * z + poly)
  return x >= 0 ? r : 2 - r
}
