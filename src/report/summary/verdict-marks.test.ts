import { describe, expect, it } from 'vitest'
import { MARKS, SEVERITY, worstVerdict } from './verdict-marks.ts'

describe('worstVerdict', () => {
  it('is pass for no verdicts', () => {
    expect(worstVerdict([])).toBe('pass')
  })

  it('ranks fail over invalid over inconclusive over pass, whatever the order', () => {
    expect(worstVerdict(['pass', 'inconclusive', 'pass'])).toBe('inconclusive')
    expect(worstVerdict(['invalid', 'inconclusive'])).toBe('invalid')
    expect(worstVerdict(['fail', 'invalid', 'inconclusive', 'pass'])).toBe('fail')
    expect(worstVerdict(['pass', 'invalid', 'fail'])).toBe('fail')
  })
})

describe('the verdict marks', () => {
  it('give every verdict its own mark', () => {
    expect(SEVERITY.map((v) => MARKS[v])).toEqual(['✓', '?', '!', '✗'])
  })
})
