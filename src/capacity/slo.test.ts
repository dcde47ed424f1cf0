import { describe, expect, it } from 'vitest'
import type { ConfigIssue } from '../errors.ts'
import { parseSlos, sloLabel } from './slo.ts'

function parse(
  texts: string[],
  goodput?: { ttft?: number },
): { slos: unknown; goodput?: unknown; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = []
  return { ...parseSlos(texts, '--slo', goodput, issues), issues }
}

describe('parseSlos', () => {
  it('reads result keys, upstream operators, error rate and goodput', () => {
    expect(
      parse([
        'p99_ttft_ms:500',
        'mean_tpot_ms:<=50',
        'median_itl_ms:30',
        'p99.9_e2el_ms:2000',
        'error_rate:0.01',
      ]),
    ).toEqual({
      slos: [
        { metric: 'p99_ttft_ms', bound: 500, kind: 'max' },
        { metric: 'mean_tpot_ms', bound: 50, kind: 'max' },
        { metric: 'median_itl_ms', bound: 30, kind: 'max' },
        { metric: 'p99.9_e2el_ms', bound: 2000, kind: 'max' },
        { metric: 'error_rate', bound: 0.01, kind: 'max' },
      ],
      issues: [],
    })
  })

  it("reads Python's --goodput form as per-request limits that 99% of requests must meet", () => {
    expect(parse(['ttft:500', 'tpot:50'])).toEqual({
      slos: [{ metric: 'goodput', bound: 0.99, kind: 'min' }],
      goodput: { ttft: 500, tpot: 50 },
      issues: [],
    })
    expect(parse(['goodput:0.9'], { ttft: 300 })).toEqual({
      slos: [{ metric: 'goodput', bound: 0.9, kind: 'min' }],
      goodput: { ttft: 300 },
      issues: [],
    })
  })

  it('names each bad SLO and what is valid', () => {
    const { issues } = parse([
      'p99_latency:500',
      'p99_ttft_ms',
      'mean_tpot_ms:>=50',
      'error_rate:2',
      'goodput:0.9',
      'p100_ttft_ms:1',
    ])
    expect(issues.map((i) => i.message)).toEqual([
      expect.stringMatching(
        /^has an unknown metric "p99_latency" in "p99_latency:500"; valid: <mean\|median\|pN>_/,
      ),
      'must be METRIC:BOUND with a bound of 0 or more, such as p99_ttft_ms:500 (got "p99_ttft_ms")',
      'mean_tpot_ms is an upper bound; ">=" in "mean_tpot_ms:>=50" asks the opposite',
      'error_rate is a fraction from 0 to 1 (got 2)',
      expect.stringMatching(/^has an unknown metric "p100_ttft_ms"/),
      'goodput needs per-request limits: give --goodput ttft:MS tpot:MS e2el:MS, or the --goodput form in --slo (ttft:500)',
    ])
    expect(issues.every((i) => i.path === '--slo')).toBe(true)
  })

  it('labels SLOs in words', () => {
    expect(sloLabel({ metric: 'p99_ttft_ms', bound: 500, kind: 'max' })).toBe('p99 TTFT ≤ 500 ms')
    expect(sloLabel({ metric: 'goodput', bound: 0.99, kind: 'min' }, { ttft: 500 })).toBe(
      'goodput ≥ 0.99 (TTFT ≤ 500 ms)',
    )
  })
})
