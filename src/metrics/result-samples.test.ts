import { describe, expect, it } from 'vitest'
import type { BenchResult } from '../report/result/result-types.ts'
import { blockedLatencySamples, throughputWindows } from './result-samples.ts'

// 16 requests at concurrency 2: two start together every 0.1 s; each takes 0.1 s, 3 tokens. #5 failed.
function result(extra: Record<string, unknown> = {}): BenchResult {
  const n = 16
  return {
    max_concurrency: 2,
    ttfts: Array.from({ length: n }, (_, i) => 0.01 * (1 + Math.floor(i / 2))),
    latencies: Array(n).fill(0.1),
    itls: Array.from({ length: n }, () => [0.04, 0.04]),
    output_lens: Array(n).fill(3),
    input_lens: Array(n).fill(10),
    start_times: Array.from({ length: n }, (_, i) => 0.1 * Math.floor(i / 2)),
    errors: Array.from({ length: n }, (_, i) => (i === 5 ? 'HTTP 500' : '')),
    ...extra,
  } as unknown as BenchResult
}

describe('blockedLatencySamples', () => {
  it('leaves failed requests out and keeps requests that started together in one block', () => {
    const ttft = blockedLatencySamples(result(), 'ttft')
    expect(ttft.values).toHaveLength(15)
    // 15 successful requests, L = max(2, ⌈15^(1/3)⌉) = 3 capped at ⌊15 / 8⌋ = 1, grown over equal starts.
    const blocks = Array.from(ttft.blocks)
    expect(blocks.slice(0, 4)).toEqual([0, 0, 1, 1])
    expect(blocks[4]).toBe(2) // #4 started with the failed #5: a block of one
    expect(blocks[5]).toBe(3)
  })

  it('gives each ITL gap its request’s block', () => {
    const itl = blockedLatencySamples(result(), 'itl')
    expect(itl.values).toHaveLength(30)
    expect(Array.from(itl.blocks).slice(0, 4)).toEqual([0, 0, 0, 0])
  })
})

describe('throughputWindows', () => {
  it('follows the result’s steady_state window when it has one', () => {
    const steady = result({ steady_state: { window: { start_s: 0.2, end_s: 0.6 } } })
    const w = throughputWindows(steady, 'request_throughput')
    expect(w.span).toEqual({ startS: 0.2, endS: 0.6 })
    expect(w.windowS).toBeCloseTo(0.1, 10)
    expect(w.rates).toHaveLength(4)
  })

  it('runs from the start at rank ⌈n/10⌉ to the last start without it', () => {
    // 15 successful requests: rank 2 started at 0, with the first; the last started at 0.7.
    const w = throughputWindows(result(), 'output_throughput')
    expect(w.span.startS).toBe(0)
    expect(w.span.endS).toBeCloseTo(0.7, 12)
    const late = throughputWindows(
      result({ start_times: Array.from({ length: 16 }, (_, i) => 0.1 * i) }),
      'output_throughput',
    )
    expect(late.span.startS).toBeCloseTo(0.1, 12) // rank 2 of 15 successful starts
  })
})
