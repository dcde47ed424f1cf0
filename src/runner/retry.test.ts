import { describe, expect, it } from 'vitest'
import { checkFailureRatio, describeFailureRatio } from './failure-ratio.ts'
import { redactSecrets, redactUrl, secretsOf } from './redact.ts'
import { DEFAULT_RETRY_POLICY, isRetryable, parseRetryAfterMs, retryDelayMs } from './retry.ts'

describe('retry decisions', () => {
  it('retries connect errors, 429 and 5xx; never timeouts or other statuses', () => {
    expect(isRetryable({ kind: 'connect', timedOut: false })).toBe(true)
    expect(isRetryable({ kind: 'connect', timedOut: true })).toBe(false)
    expect(isRetryable({ kind: 'status', status: 429 })).toBe(true)
    expect(isRetryable({ kind: 'status', status: 503 })).toBe(true)
    expect(isRetryable({ kind: 'status', status: 400 })).toBe(false)
    expect(isRetryable(undefined)).toBe(false)
  })

  it('backs off exponentially, and waits longer when Retry-After says so (capped)', () => {
    const policy = DEFAULT_RETRY_POLICY
    expect([1, 2, 3, 10].map((k) => retryDelayMs(k, undefined, policy))).toEqual([250, 500, 1000, 5000])
    expect(retryDelayMs(1, { kind: 'status', status: 429, retryAfter: '2' }, policy)).toBe(2000)
    expect(retryDelayMs(1, { kind: 'status', status: 429, retryAfter: '3600' }, policy)).toBe(60_000)
  })

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfterMs('3')).toBe(3000)
    expect(
      parseRetryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')),
    ).toBe(5000)
    expect(parseRetryAfterMs('soon')).toBeUndefined()
  })
})

describe('failure ratio', () => {
  it('is exceeded strictly above the threshold and says so with numbers', () => {
    expect(checkFailureRatio({ completed: 95, failed: 5 }, 0.05).exceeded).toBe(false)
    const check = checkFailureRatio({ completed: 94, failed: 6 }, 0.05)
    expect(describeFailureRatio(check)).toBe(
      '6 of 100 requests failed (6%), above the failure ratio limit 0.05 (5%)',
    )
  })
})

describe('redaction', () => {
  it('blanks the API key, header values and a URL password, longest first', () => {
    const secrets = secretsOf({
      apiKey: 'sk-abc',
      headers: { 'X-A': 'sk-abcdef', 'X-B': 'on' },
      baseUrl: 'http://u:p%40ss@h:1',
    })
    expect(secrets).toEqual(['sk-abcdef', 'sk-abc', 'p%40ss', 'p@ss'])
    expect(redactSecrets('key sk-abcdef and sk-abc, on, p@ss', secrets)).toBe(
      'key [redacted] and [redacted], on, [redacted]',
    )
    expect(redactUrl('http://u:p@h:1/v1')).toBe('http://[redacted]@h:1/v1')
    expect(redactUrl('http://h:1')).toBe('http://h:1')
  })
})
