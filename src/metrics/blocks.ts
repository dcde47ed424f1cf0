/**
 * Blocks of correlated requests. Requests of one closed-loop wave start together, wait in the same
 * batch and share most of their TTFT; requests of one burst do the same in an open loop. Resampling
 * single requests treats them as independent and makes intervals several times too narrow, so the
 * bootstrap resamples whole blocks: contiguous groups of requests in start-time order. Pure.
 *
 * The rule: a block holds `L = max(c, ⌈n^(1/3)⌉)` requests, where c is the concurrency limit (one
 * closed-loop wave) or 1 without one, and n^(1/3) is the classical block length of a block
 * bootstrap for weakly dependent series. L is capped at `⌊n / MIN_BLOCKS⌋` so a run always has
 * MIN_BLOCKS blocks to resample (a run with fewer waves cannot keep its waves whole). A block never
 * splits requests that started at the same instant (a burst): it grows until the start time changes.
 */

/** Fewest blocks a run is cut into, so the bootstrap has something to resample. */
export const MIN_BLOCKS = 8

export interface BlockOptions {
  /** Concurrency limit of the run (`max_concurrency`); undefined or Infinity for none. */
  concurrency?: number
}

/** The block length L of n requests (see the module comment). */
export function blockLength(n: number, options: BlockOptions = {}): number {
  const c =
    options.concurrency !== undefined && Number.isFinite(options.concurrency) ? options.concurrency : 1
  const wanted = Math.max(Math.max(1, Math.floor(c)), Math.ceil(Math.cbrt(n)))
  return Math.max(1, Math.min(wanted, Math.floor(n / MIN_BLOCKS)))
}

/**
 * The block id of each request (in the order given), numbered 0, 1, … in start-time order.
 * Requests without a start time (NaN) go into the last block.
 */
export function assignBlocks(startTimesS: ArrayLike<number>, options: BlockOptions = {}): Int32Array {
  const n = startTimesS.length
  const ids = new Int32Array(n)
  if (n === 0) return ids
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => {
    const x = startTimesS[a]!
    const y = startTimesS[b]!
    if (Number.isNaN(x)) return Number.isNaN(y) ? a - b : 1
    if (Number.isNaN(y)) return -1
    return x - y || a - b
  })
  const length = blockLength(n, options)
  let block = 0
  let inBlock = 0
  let previous = Number.NaN
  for (const i of order) {
    const t = startTimesS[i]!
    // Start a new block once this one is full, unless the request started with the previous one.
    if (inBlock >= length && t !== previous) {
      block++
      inBlock = 0
    }
    ids[i] = block
    inBlock++
    previous = t
  }
  return ids
}
