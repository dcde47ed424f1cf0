/**
 * Peak number of requests in flight at the same instant.
 *
 * Deviation: older Python (vllm/benchmarks/serve.py before PR #56647) and Rust count requests per integer-second bucket, which overcounts at
 * bucket boundaries; this is the exact sweep-line of vllm/benchmarks/serve.py since PR #56647 over half-open
 * `[start, start + latency)` intervals, departures before arrivals at equal times.
 * Python: calculate_metrics (vllm/benchmarks/serve.py).
 */
export function peakConcurrency(intervals: ReadonlyArray<{ startS: number; latencyS: number }>): number {
  const events: Array<[timeS: number, delta: 1 | -1]> = []
  for (const { startS, latencyS } of intervals) {
    // A zero-length interval holds no instant, so it never counts.
    if (!(latencyS > 0)) continue
    events.push([startS, 1], [startS + latencyS, -1])
  }
  events.sort((x, y) => x[0] - y[0] || x[1] - y[1])
  let current = 0
  let peak = 0
  for (const [, delta] of events) {
    current += delta
    if (current > peak) peak = current
  }
  return peak
}
