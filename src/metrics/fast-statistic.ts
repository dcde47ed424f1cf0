/**
 * Statistics of a resample buffer, computed in O(n): the bootstrap evaluates one per resample, so a
 * percentile uses quickselect instead of a sort. Each function may reorder `buf[0 … len)`.
 * Percentiles follow numpy 'linear' (the same definition as `percentile.ts`). Pure.
 */

/** A statistic of the first `len` values of `buf`; it may reorder them. */
export type BufferStatistic = (buf: Float64Array, len: number) => number

/**
 * The statistic named like a result key's prefix: `mean`, `median`, `std` (population), `min`,
 * `max` or `p<0–100>` (`p99`, `p99.9`); undefined for any other name.
 */
export function bufferStatistic(name: string): BufferStatistic | undefined {
  if (name === 'mean') return meanOf
  if (name === 'median') return (buf, len) => quantileOf(buf, len, 0.5)
  if (name === 'std') return stdOf
  if (name === 'min') return (buf, len) => extremeOf(buf, len, -1)
  if (name === 'max') return (buf, len) => extremeOf(buf, len, 1)
  const m = /^p(\d+(?:\.\d+)?)$/.exec(name)
  if (m) {
    const p = Number(m[1]) / 100
    if (p >= 0 && p <= 1) return (buf, len) => quantileOf(buf, len, p)
  }
  return undefined
}

/** The quantile level (0–1) of a percentile statistic name (`median` = 0.5), else undefined. */
export function quantileLevel(name: string): number | undefined {
  if (name === 'median') return 0.5
  const m = /^p(\d+(?:\.\d+)?)$/.exec(name)
  return m ? Number(m[1]) / 100 : undefined
}

function meanOf(buf: Float64Array, len: number): number {
  let s = 0
  for (let i = 0; i < len; i++) s += buf[i]!
  return s / len
}

function stdOf(buf: Float64Array, len: number): number {
  const mu = meanOf(buf, len)
  let s = 0
  for (let i = 0; i < len; i++) s += (buf[i]! - mu) ** 2
  return Math.sqrt(s / len)
}

function extremeOf(buf: Float64Array, len: number, sign: 1 | -1): number {
  let best = buf[0]!
  for (let i = 1; i < len; i++) if (sign * (buf[i]! - best) > 0) best = buf[i]!
  return best
}

// numpy 'linear': position q·(len − 1), interpolated between the two order statistics around it.
function quantileOf(buf: Float64Array, len: number, q: number): number {
  const pos = q * (len - 1)
  const lo = Math.floor(pos)
  const a = select(buf, 0, len - 1, lo)
  if (pos === lo) return a
  // After selecting rank lo, the next order statistic is the minimum of the part above it.
  let b = buf[lo + 1]!
  for (let i = lo + 2; i < len; i++) if (buf[i]! < b) b = buf[i]!
  return a + (b - a) * (pos - lo)
}

// Hoare quickselect with a median-of-three pivot: buf[k] ends up at rank k, smaller values left of it.
function select(buf: Float64Array, left: number, right: number, k: number): number {
  let l = left
  let r = right
  while (r > l) {
    const mid = (l + r) >>> 1
    if (buf[mid]! < buf[l]!) swap(buf, mid, l)
    if (buf[r]! < buf[l]!) swap(buf, r, l)
    if (buf[r]! < buf[mid]!) swap(buf, r, mid)
    const pivot = buf[mid]!
    let i = l
    let j = r
    while (i <= j) {
      while (buf[i]! < pivot) i++
      while (buf[j]! > pivot) j--
      if (i <= j) {
        swap(buf, i, j)
        i++
        j--
      }
    }
    if (k <= j) r = j
    else if (k >= i) l = i
    else break
  }
  return buf[k]!
}

function swap(buf: Float64Array, i: number, j: number): void {
  const t = buf[i]!
  buf[i] = buf[j]!
  buf[j] = t
}
