import { describe, expect, it } from 'vitest'
import { terminalSafe } from './terminal-text.ts'

describe('terminalSafe', () => {
  it('escapes colour and title sequences, CR, BEL, DEL, C1 and bidi overrides', () => {
    expect(terminalSafe('\u001b[31mred\u001b[0m')).toBe('\\x1b[31mred\\x1b[0m')
    expect(terminalSafe('\u001b]0;pwned\u0007')).toBe('\\x1b]0;pwned\\x07')
    expect(terminalSafe('ok\rFAKE\u007f\u009b2J\u202eabc')).toBe('ok\\x0dFAKE\\x7f\\x9b2J\\u202eabc')
  })

  it('keeps line feeds, tabs and printable text, and returns a clean text as it is', () => {
    const text = 'Error 0: HTTP 500\n  Caused by:\tüñí 😀'
    expect(terminalSafe(text)).toBe(text)
  })
})
