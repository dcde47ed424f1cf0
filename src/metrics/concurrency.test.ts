import { describe, expect, it } from 'vitest'
import { peakConcurrency } from './concurrency.ts'

// Python: calculate_metrics (vllm/benchmarks/serve.py) and tests/benchmarks/test_serve_metrics.py (half-open intervals).
describe('peakConcurrency', () => {
  it('gives 1 for sequential sub-second requests that a per-second bucket would count together', () => {
    const intervals = [0, 0.2, 0.4, 0.6, 0.8].map((startS) => ({ startS, latencyS: 0.15 }))
    expect(peakConcurrency(intervals)).toBe(1)
  })

  it('gives 1 when one request ends exactly as the next starts (departure first)', () => {
    expect(
      peakConcurrency([
        { startS: 1, latencyS: 0.5 },
        { startS: 1.5, latencyS: 0.5 },
      ]),
    ).toBe(1)
  })

  it('gives 0 for a zero-latency request', () => {
    expect(peakConcurrency([{ startS: 3, latencyS: 0 }])).toBe(0)
  })

  it('lets a zero-latency request add nothing to the requests around it', () => {
    expect(
      peakConcurrency([
        { startS: 0, latencyS: 5 },
        { startS: 2, latencyS: 0 },
        { startS: 2, latencyS: 1 },
      ]),
    ).toBe(2)
  })

  it('counts requests that start at the same instant together', () => {
    const intervals = Array.from({ length: 8 }, () => ({ startS: 10, latencyS: 1 }))
    expect(peakConcurrency(intervals)).toBe(8)
  })

  it('finds the peak of overlapping intervals and 0 for none', () => {
    expect(
      peakConcurrency([
        { startS: 0, latencyS: 10 },
        { startS: 1, latencyS: 2 },
        { startS: 2, latencyS: 2 },
        { startS: 3.5, latencyS: 1 },
      ]),
    ).toBe(3)
    expect(peakConcurrency([])).toBe(0)
  })
})
