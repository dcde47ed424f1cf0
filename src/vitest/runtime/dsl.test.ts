import { describe, expect, it } from 'vitest'
import { DEFAULT_MAX_FAILURE_RATIO } from '../../config/defaults.ts'
import { assertFailureRatio } from './dsl.ts'

const records = (failed: number, total = 20) =>
  Array.from({ length: total }, (_, i) => ({
    success: i >= failed,
    error: i < failed ? `HTTP 500 #${i}` : '',
  }))

// What a benchmark that sets neither option resolves to.
const DEFAULTS = { maxFailureRatio: DEFAULT_MAX_FAILURE_RATIO }

describe('assertFailureRatio', () => {
  it('fails above 5% by default, and above maxFailureRatio when it is set', () => {
    expect(assertFailureRatio(DEFAULTS, records(1))).toBeUndefined()
    expect(() => assertFailureRatio(DEFAULTS, records(2))).toThrow(
      '2 of 20 requests failed (10%), above maxFailureRatio 0.05 (5%); first error: HTTP 500 #0',
    )
    expect(assertFailureRatio({ maxFailureRatio: 0.1 }, records(2))).toBeUndefined()
    expect(() => assertFailureRatio({ maxFailureRatio: 0 }, records(1))).toThrow(
      '1 of 20 requests failed (5%), above maxFailureRatio 0 (0%); first error: HTTP 500 #0',
    )
  })

  it('with failOnErrorRatio, fails above it and only warns above maxFailureRatio', () => {
    expect(assertFailureRatio({ ...DEFAULTS, failOnErrorRatio: 0.5 }, records(4))).toBe(
      '4 of 20 requests failed (20%), above maxFailureRatio 0.05 (5%); first error: HTTP 500 #0',
    )
    expect(assertFailureRatio({ failOnErrorRatio: 0.5, maxFailureRatio: 0.25 }, records(4))).toBeUndefined()
    expect(() => assertFailureRatio({ ...DEFAULTS, failOnErrorRatio: 0.5 }, records(12))).toThrow(
      '12 of 20 requests failed (60%), above failOnErrorRatio 0.5 (50%); first error: HTTP 500 #0',
    )
    // 1 never fails on the ratio.
    expect(assertFailureRatio({ ...DEFAULTS, failOnErrorRatio: 1 }, records(19))).toMatch(
      /^19 of 20 requests failed/,
    )
  })
})
