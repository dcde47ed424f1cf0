/**
 * The binomial distribution's tails through the regularized incomplete beta function, computed in
 * log space (Lanczos log-gamma, Lentz continued fraction), so a tail of Bin(10^6, 0.99) costs a few
 * hundred steps and never underflows. Pure; used by the order-statistic quantile intervals.
 */

const LANCZOS_G = 7
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
]
const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI)
const CF_EPS = 1e-15
const CF_TINY = 1e-300

/** `ln Γ(x)` for x > 0 (Lanczos, g = 7; relative error about 1e-15). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x)
  const z = x - 1
  let a = LANCZOS[0]!
  for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i]! / (z + i)
  const t = z + LANCZOS_G + 0.5
  return HALF_LOG_2PI + (z + 0.5) * Math.log(t) - t + Math.log(a)
}

/** Regularized incomplete beta `I_x(a, b)` for a, b > 0 and x in [0, 1]. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const logFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x)
  // The continued fraction converges fast only below the mean; use the symmetry above it.
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(logFront) * betaContinuedFraction(x, a, b)) / a
  return 1 - (Math.exp(logFront) * betaContinuedFraction(1 - x, b, a)) / b
}

/** `P(Bin(n, p) ≤ k)`. */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0
  if (k >= n) return 1
  if (p <= 0) return 1
  if (p >= 1) return 0
  return incompleteBeta(1 - p, n - k, k + 1)
}

/** `P(Bin(n, p) ≥ k)`, computed directly (not as `1 - cdf`) so small upper tails keep their digits. */
export function binomialSf(k: number, n: number, p: number): number {
  if (k <= 0) return 1
  if (k > n) return 0
  if (p <= 0) return 0
  if (p >= 1) return 1
  return incompleteBeta(p, k, n - k + 1)
}

// Modified Lentz evaluation of the incomplete beta continued fraction (Numerical Recipes betacf).
function betaContinuedFraction(x: number, a: number, b: number): number {
  const qab = a + b
  const qap = a + 1
  const qam = a - 1
  let c = 1
  let d = 1 - (qab * x) / qap
  if (Math.abs(d) < CF_TINY) d = CF_TINY
  d = 1 / d
  let h = d
  // Convergence takes O(sqrt(max(a, b))) steps; the cap only guards against a bug.
  const maxIterations = 200 + 20 * Math.ceil(Math.sqrt(Math.max(a, b)))
  for (let m = 1; m <= maxIterations; m++) {
    const m2 = 2 * m
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < CF_TINY) d = CF_TINY
    c = 1 + aa / c
    if (Math.abs(c) < CF_TINY) c = CF_TINY
    d = 1 / d
    h *= d * c
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2))
    d = 1 + aa * d
    if (Math.abs(d) < CF_TINY) d = CF_TINY
    c = 1 + aa / c
    if (Math.abs(c) < CF_TINY) c = CF_TINY
    d = 1 / d
    const delta = d * c
    h *= delta
    if (Math.abs(delta - 1) < CF_EPS) break
  }
  return h
}
