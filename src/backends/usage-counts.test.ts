import { describe, expect, it } from 'vitest'
import { impossibleUsageMessage, MAX_USAGE_TOKENS, readUsageCount } from './usage-counts.ts'

describe('readUsageCount', () => {
  it('accepts whole numbers from 0 to the maximum, and reads null or a missing field as absent', () => {
    expect(readUsageCount('prompt_tokens', 0)).toEqual({ kind: 'count', value: 0 })
    expect(readUsageCount('prompt_tokens', MAX_USAGE_TOKENS)).toEqual({
      kind: 'count',
      value: MAX_USAGE_TOKENS,
    })
    expect(readUsageCount('prompt_tokens', undefined)).toEqual({ kind: 'absent' })
    expect(readUsageCount('prompt_tokens', null)).toEqual({ kind: 'absent' })
  })

  it('refuses negative, fractional, absurd and non-numeric counts, naming the field', () => {
    for (const value of [-5, 2.5, 1e300, MAX_USAGE_TOKENS + 1, Number.NaN, '12', {}]) {
      expect(readUsageCount('completion_tokens', value)).toEqual({
        kind: 'impossible',
        error: impossibleUsageMessage('completion_tokens', value),
      })
    }
    expect(impossibleUsageMessage('completion_tokens', 1e300)).toBe(
      'Server reported an impossible usage.completion_tokens (1e+300): a count must be a whole number from 0 to 100000000; the request is counted as failed',
    )
  })
})
