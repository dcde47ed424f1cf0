import type { RequestRecord } from '../config/records.ts'

/**
 * Largest number of token chunks that arrived within one integer second, counted from the earliest
 * start among successful requests. Counts chunks, not usage tokens (hence "peak < average" under
 * speculative decoding, issue #37666). Python: calculate_metrics (vllm/benchmarks/serve.py).
 */
export function peakOutputTokensPerS(
  records: ReadonlyArray<Pick<RequestRecord, 'success' | 'startTimeS' | 'ttftS' | 'itlS' | 'latencyS'>>,
): number {
  const ok = records.filter((r) => r.success)
  if (ok.length === 0) return 0
  let minStart = Number.POSITIVE_INFINITY
  let maxEnd = Number.NEGATIVE_INFINITY
  for (const r of ok) {
    minStart = Math.min(minStart, r.startTimeS)
    maxEnd = Math.max(maxEnd, r.startTimeS + r.latencyS)
  }
  const bucketCount = Math.ceil(maxEnd - minStart) + 1
  // A map rather than Python's dense array: a run of hours must not allocate per second.
  const buckets = new Map<number, number>()
  const add = (timeS: number): void => {
    // Python int() truncates toward zero.
    const bucket = Math.trunc(timeS - minStart)
    if (bucket >= 0 && bucket < bucketCount) buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1)
  }
  for (const r of ok) {
    let t = r.startTimeS + r.ttftS
    add(t)
    for (const gap of r.itlS) {
      t += gap
      add(t)
    }
  }
  let peak = 0
  for (const count of buckets.values()) if (count > peak) peak = count
  return peak
}
