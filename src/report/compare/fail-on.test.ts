import { describe, expect, it } from 'vitest'
import { judgeFailOn, numericValue, parseFailOn, renderFailOn } from './fail-on.ts'

const parsed = (spec: string) => {
  const t = parseFailOn(spec)
  if ('error' in t) throw new Error(t.error)
  return t
}

describe('parseFailOn', () => {
  it('reads relative and absolute changes in both directions', () => {
    expect(parseFailOn('p99_ttft_ms:+10%')).toEqual({
      spec: 'p99_ttft_ms:+10%',
      metric: 'p99_ttft_ms',
      direction: '+',
      change: 0.1,
      relative: true,
    })
    expect(parseFailOn('request_throughput:-5%')).toMatchObject({ direction: '-', change: 0.05 })
    expect(parseFailOn('mean_tpot_ms:+2.5')).toMatchObject({ direction: '+', change: 2.5, relative: false })
  })

  it('names the expected form for a malformed value', () => {
    for (const bad of ['p99_ttft_ms+10%', 'p99_ttft_ms:10%', 'p99_ttft_ms:+', ':+10%', 'x:+1%%']) {
      expect(parseFailOn(bad)).toEqual({
        error: `must be <metric>:<+|-><change>[%], such as p99_ttft_ms:+10% or request_throughput:-5% (got "${bad}")`,
      })
    }
  })
})

describe('judgeFailOn', () => {
  it('crosses a rise only beyond the tolerated change', () => {
    expect(judgeFailOn(parsed('p99_ttft_ms:+10%'), 100, 110).crossed).toBe(false)
    expect(judgeFailOn(parsed('p99_ttft_ms:+10%'), 100, 110.5).crossed).toBe(true)
    expect(judgeFailOn(parsed('p99_ttft_ms:+10%'), 100, 50).crossed).toBe(false)
    expect(judgeFailOn(parsed('mean_tpot_ms:+2'), 10, 12.5).crossed).toBe(true)
  })

  it('crosses a fall only beyond the tolerated change', () => {
    expect(judgeFailOn(parsed('request_throughput:-5%'), 20, 19).crossed).toBe(false)
    expect(judgeFailOn(parsed('request_throughput:-5%'), 20, 18.9).crossed).toBe(true)
    expect(judgeFailOn(parsed('request_throughput:-5%'), 20, 40).crossed).toBe(false)
  })

  it('counts inf as a crossing rise and nan as crossed', () => {
    expect(judgeFailOn(parsed('p99_itl_ms:+10%'), 5, Number.POSITIVE_INFINITY).crossed).toBe(true)
    expect(judgeFailOn(parsed('p99_itl_ms:-10%'), 5, Number.NaN).crossed).toBe(true)
    expect(numericValue('inf')).toBe(Number.POSITIVE_INFINITY)
    expect(numericValue('12')).toBeUndefined()
  })
})

describe('renderFailOn', () => {
  it('prints one line per threshold with both values and the change', () => {
    const text = renderFailOn([
      judgeFailOn(parsed('p99_ttft_ms:+10%'), 120, 150),
      judgeFailOn(parsed('request_throughput:-5%'), 10, 12.5),
    ])
    expect(text).toBe(
      'fail-on:\n  ✗ p99_ttft_ms:+10%  120 → 150 (+25.0%): crossed\n  ✓ request_throughput:-5%  10 → 12.50 (+25.0%): within\n',
    )
  })
})
