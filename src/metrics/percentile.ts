/**
 * numpy's statistics as `vllm bench serve` calls them (`np.mean`, `np.median`, `np.std`,
 * `np.percentile`), down to the order of floating-point operations, so results agree with Python to
 * the last bit. An empty input gives 0, as Python's `values or 0` does.
 */

// numpy: pairwise_sum (umath/loops_utils.h), the inner loop of `np.add.reduce` on float64.
const PAIRWISE_BLOCK = 128

function pairwiseSum(xs: ArrayLike<number>, start: number, n: number): number {
  if (n < 8) {
    let res = 0
    for (let i = 0; i < n; i++) res += xs[start + i]!
    return res
  }
  if (n <= PAIRWISE_BLOCK) {
    const r = [0, 0, 0, 0, 0, 0, 0, 0]
    for (let j = 0; j < 8; j++) r[j] = xs[start + j]!
    let i = 8
    for (; i < n - (n % 8); i += 8) {
      for (let j = 0; j < 8; j++) r[j]! += xs[start + i + j]!
    }
    let res = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!))
    for (; i < n; i++) res += xs[start + i]!
    return res
  }
  let half = Math.floor(n / 2)
  half -= half % 8
  return pairwiseSum(xs, start, half) + pairwiseSum(xs, start + half, n - half)
}

/** `np.sum` of float64: the identity 0 plus numpy's pairwise sum. */
export function sum(xs: ArrayLike<number>): number {
  return 0 + pairwiseSum(xs, 0, xs.length)
}

/** `np.mean`; `[]` gives 0. */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return 0
  return sum(xs) / xs.length
}

/** Population standard deviation, `np.std` with ddof 0; `[]` gives 0. */
export function std(xs: readonly number[]): number {
  const n = xs.length
  if (n === 0) return 0
  const m = sum(xs) / n
  const squares = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const d = xs[i]! - m
    squares[i] = d * d
  }
  return Math.sqrt(sum(squares) / n)
}

function sorted(xs: readonly number[]): Float64Array {
  return Float64Array.from(xs).sort()
}

/** `np.median`: the middle value, or the mean of the two middle values; `[]` gives 0. */
export function median(xs: readonly number[]): number {
  return medianSorted(sorted(xs))
}

/** {@link median} of values already sorted ascending. */
export function medianSorted(s: ArrayLike<number>): number {
  const n = s.length
  if (n === 0) return 0
  const mid = Math.floor(n / 2)
  if (n % 2 === 1) return s[mid]!
  return (0 + s[mid - 1]! + s[mid]!) / 2
}

/** numpy `'linear'` percentile, `p` in [0, 100]; `[]` gives 0. */
export function percentile(xs: readonly number[], p: number): number {
  return percentileSorted(sorted(xs), p)
}

/**
 * {@link percentile} of values already sorted ascending.
 * numpy: `_quantile` with the linear method and `_lerp` (lib/function_base.py).
 */
export function percentileSorted(s: ArrayLike<number>, p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be between 0 and 100 (got ${p})`)
  const n = s.length
  if (n === 0) return 0
  const index = (n - 1) * (p / 100)
  if (index >= n - 1) return s[n - 1]!
  const lower = Math.floor(index)
  const a = s[lower]!
  const b = s[lower + 1]!
  const t = index - lower
  const diff = b - a
  // numpy interpolates from the nearer end, which keeps the result monotonic in t.
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t
}
