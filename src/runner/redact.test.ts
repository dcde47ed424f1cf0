import { describe, expect, it } from 'vitest'
import { REDACTED, redactDeep, redactSecrets, secretsOf } from './redact.ts'

describe('secretsOf', () => {
  it('holds the bare credential of a header value, a Basic pair and the HF token', () => {
    const basic = Buffer.from('alice:open-sesame').toString('base64')
    const secrets = secretsOf(
      {
        headers: { Authorization: 'Bearer sk-abc123456', 'Proxy-Authorization': `Basic ${basic}` },
        baseUrl: 'http://u:url-pass@host',
      },
      { HF_TOKEN: 'hf_token_value' },
    )
    for (const secret of [
      'Bearer sk-abc123456',
      'sk-abc123456',
      basic,
      'open-sesame',
      'url-pass',
      'hf_token_value',
    ]) {
      expect(secrets).toContain(secret)
    }
    // Longest first, so `Bearer sk-…` is blanked whole before `sk-…`.
    expect(secrets.indexOf('Bearer sk-abc123456')).toBeLessThan(secrets.indexOf('sk-abc123456'))
  })

  it('leaves out values too short to blank everywhere', () => {
    expect(secretsOf({ headers: { 'X-Flag': 'on' } }, {})).toEqual([])
  })
})

describe('redactDeep', () => {
  it('blanks secrets in every string of nested objects and arrays, in place', () => {
    const value = {
      errors: ['', 'Incorrect API key provided: sk-abc123456'],
      generated_texts: ['key sk-abc123456 here'],
      nested: { deeper: [{ text: 'sk-abc123456' }] },
      ttfts: [0.1, 0.2],
    }
    redactDeep(value, ['sk-abc123456'])
    expect(value).toEqual({
      errors: ['', `Incorrect API key provided: ${REDACTED}`],
      generated_texts: [`key ${REDACTED} here`],
      nested: { deeper: [{ text: REDACTED }] },
      ttfts: [0.1, 0.2],
    })
  })

  it('is redactSecrets on a string', () => {
    expect(redactDeep('a sk-abc123456 b', ['sk-abc123456'])).toBe(
      redactSecrets('a sk-abc123456 b', ['sk-abc123456']),
    )
  })
})

describe('redactSecrets: encoded echoes', () => {
  const key = 'sk-proj-0123456789abcdef'

  it('blanks the key with any of its characters JSON-escaped or percent-encoded', () => {
    expect(redactSecrets('{"m":"key sk\\u002dproj-0123456789abcdef"}', [key])).toBe('{"m":"key [redacted]"}')
    expect(redactSecrets('k=sk%2Dproj%2d0123456789abcdef&x', [key])).toBe('k=[redacted]&x')
    expect(redactSecrets('\\u0073\\u006B-proj-0123456789abcdef!', [key])).toBe('[redacted]!')
  })

  it('blanks its base64 at every offset inside a longer base64 text, in both alphabets', () => {
    for (const before of ['', 'a', 'ab', 'Bearer ']) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const text = Buffer.from(`${before}${key} and more`).toString(encoding)
        const clean = redactSecrets(text, [key])
        expect(clean).toContain(REDACTED)
        expect(Buffer.from(clean.replace(REDACTED, ''), encoding).toString('latin1')).not.toContain(
          '0123456789',
        )
      }
    }
  })

  it('leaves texts without the key as they are', () => {
    const text = 'a 100% \\n normal text, YWJjZGVm'
    expect(redactSecrets(text, [key])).toBe(text)
  })
})
