import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compareRow, formatComparison, parseResultText } from './compare.ts'

const FIXTURES = resolve(import.meta.dirname, '../../../fixtures/results')
const read = (name: string) => ({
  path: name,
  result: parseResultText(readFileSync(resolve(FIXTURES, name), 'utf8')),
})

// Expected rows computed by hand from fixtures/results/compare-a.json (compact) and compare-b.json (pretty).
describe('formatComparison', () => {
  const text = formatComparison(read('compare-a.json'), read('compare-b.json'), { color: false })
  const line = (key: string) => text.split('\n').find((l) => l.startsWith(`${key} `))

  it('prints both files with model and date', () => {
    expect(text).toContain('  A: compare-a.json (model: org/model-a, date: 20260101-010203)')
    expect(text).toContain('  B: compare-b.json (model: org/model-b, date: 20260102-010203)')
  })

  it('marks a throughput rise as an improvement', () => {
    expect(line('request_throughput')).toBe(
      `${'request_throughput'.padEnd(35)} ${'10'.padStart(12)} ${'12.50'.padStart(12)} ${'+2.50'.padStart(10)} ${'+25.0%'.padStart(8)} +`,
    )
  })

  it('marks a latency drop as an improvement and a latency rise as a regression', () => {
    expect(line('mean_ttft_ms')).toMatch(/ +50 +40 +-10 +-20\.0% \+$/)
    expect(line('p99_ttft_ms')).toMatch(/ +120 +150 +\+30 +\+25\.0% -$/)
    expect(line('duration')).toMatch(/ +10 +8 +-2 +-20\.0% \+$/)
  })

  it('leaves an unchanged value unmarked and shows inf% from zero', () => {
    expect(line('median_ttft_ms')).toMatch(/ +45 +45 +\+0 +\+0\.0% {2}$/)
    expect(line('failed')).toMatch(/ +0 +2 +\+2 +inf% -$/)
  })

  it('skips metrics missing from either file', () => {
    expect(line('p99_itl_ms')).toBeUndefined()
    expect(line('mean_e2el_ms')).toBeUndefined()
  })

  it('says when a steady-state window is missing', () => {
    expect(text).toContain('N/A \u2014 one or both runs have no steady-state window')
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'Legend: + = improvement, - = regression (relative to A \u2192 B)',
    )
  })

  it('colours marks only when asked', () => {
    expect(text).not.toContain('\u001b[')
    const coloured = compareRow('x', 1, 2, false, true)
    expect(coloured).toContain('\u001b[32m+\u001b[0m')
    expect(compareRow('x', 1, 2, true, true)).toContain('\u001b[31m-\u001b[0m')
    expect(compareRow('x', 1, 1, true, true)).not.toContain('\u001b[')
  })
})

describe('parseResultText', () => {
  it('reads the last line of JSON Lines, pretty JSON, and bare Infinity', () => {
    expect(parseResultText('{"a": 1}\n{"a": 2}\n').a).toBe(2)
    expect(parseResultText('{\n  "a": 3\n}\n').a).toBe(3)
    expect(parseResultText('{"x": Infinity, "y": [NaN, -Infinity]}')).toEqual({
      x: Number.POSITIVE_INFINITY,
      y: [Number.NaN, Number.NEGATIVE_INFINITY],
    })
  })

  it('says what is wrong with a file that is not a result', () => {
    expect(() => parseResultText('[1, 2]')).toThrow(
      'is not a result file (JSON object or JSON Lines): is not a JSON object',
    )
    expect(() => parseResultText('nope')).toThrow(/^is not a result file \(JSON object or JSON Lines\): /)
  })
})
