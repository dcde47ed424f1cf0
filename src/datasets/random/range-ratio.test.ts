import { describe, expect, it } from 'vitest'
import { inputBounds, outputBounds, parseRangeRatio } from './range-ratio.ts'

// Vectors of the Rust port's range-ratio tests (config.rs, datasets/random.rs).
describe('parseRangeRatio', () => {
  it('parses a float for both sides', () => {
    expect(parseRangeRatio('0.2')).toEqual({ input: 0.2, output: 0.2 })
    expect(parseRangeRatio('0.0')).toEqual({ input: 0, output: 0 })
  })

  it('parses the JSON form', () => {
    expect(parseRangeRatio('{"input": 0.1, "output": 0.5}')).toEqual({ input: 0.1, output: 0.5 })
  })

  it('rejects 1.0 with the migration hint', () => {
    expect(() => parseRangeRatio('1.0')).toThrow(
      /--random-range-ratio input ratio must be in \[0, 1\) \(got 1\)/,
    )
    expect(() => parseRangeRatio('1.0')).toThrow(/semantics now match Python/)
  })

  it.each(['-0.1', '{"input": 0.1}', 'abc', '', '{"input": 0.1, "output": 2}'])('rejects %j', (value) => {
    expect(() => parseRangeRatio(value)).toThrow(expect.objectContaining({ code: 'SERVEBENCH_CONFIG' }))
  })

  it('names the missing JSON key', () => {
    expect(() => parseRangeRatio('{"input": 0.1}')).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: --random-range-ratio JSON form needs numeric "input" and "output" keys (missing "output")]`,
    )
  })
})

describe('length bounds', () => {
  it('r=0.2 gives (80,120) for 100 in and out', () => {
    expect(inputBounds(100, 0.2)).toEqual([80, 120])
    expect(outputBounds(100, 0.2)).toEqual([80, 120])
  })

  it('clamps the output low bound to 1', () => {
    expect(outputBounds(1, 0.99)[0]).toBe(1)
  })

  it('r=0 fixes the length', () => {
    expect(inputBounds(8192, 0)).toEqual([8192, 8192])
  })
})
