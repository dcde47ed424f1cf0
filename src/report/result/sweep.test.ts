import { describe, expect, it } from 'vitest'
import type { BenchResult } from './result-types.ts'
import { formatSweepSummary, sweepColumns, sweepRow } from './sweep.ts'

// Vectors of the Rust port's sweep summary tests (sweep.rs).
describe('sweepColumns', () => {
  const BASE = [
    'Req/s',
    'Inputs/s',
    'Tok/s',
    'Total tok/s',
    'SS req/s',
    'SS out tok/s',
    'P50 TTFT(ms)',
    'P50 TPOT(ms)',
    'P90 TTFT(ms)',
    'P90 TPOT(ms)',
  ]
  it('adds TTFT and TPOT columns for percentiles other than 50 and 90', () => {
    expect(sweepColumns([90, 95]).map((c) => c.header)).toEqual([...BASE, 'P95 TTFT(ms)', 'P95 TPOT(ms)'])
    expect(sweepColumns([50, 90]).map((c) => c.header)).toEqual(BASE)
  })
})

describe('sweepRow', () => {
  const columns = sweepColumns([90])
  it('prints a value with 2 decimals and a dash for a missing one', () => {
    const row = sweepRow('concurrency=4', { p90_ttft_ms: 40 }, columns)
    expect(row).toContain('40.00')
    expect(row).toContain(' -')
  })
  it('reads the steady-state columns from the steady_state object', () => {
    const row = sweepRow(
      'concurrency=4',
      { steady_state: { request_throughput: 0.77, output_throughput: 88.88 } },
      columns,
    )
    expect(row).toContain('0.77')
    expect(row).toContain('88.88')
    const none = sweepRow('concurrency=4', { steady_state: null }, columns)
    expect(none.match(/ -/g)!.length).toBeGreaterThanOrEqual(2)
  })
})

describe('formatSweepSummary', () => {
  it('names the best throughput point', () => {
    const point = (value: number, request_throughput: number) => ({
      value,
      result: { request_throughput, median_ttft_ms: 10 } as unknown as BenchResult,
    })
    const text = formatSweepSummary('max_concurrency', [point(1, 2), point(4, 7.5), point(8, 7)], [99])
    const lines = text.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^=+ Sweep Summary =+$/)
    expect(lines[1]!.startsWith('Max Concurrency      ')).toBe(true)
    expect(lines[0]!.length).toBe(lines[2]!.length)
    expect(lines.at(-1)).toBe('Best throughput: 7.50 req/s at concurrency=4')
    expect(formatSweepSummary('request_rate', [point(Number.POSITIVE_INFINITY, 3)], [])).toContain(
      'at rate=inf',
    )
  })
})
