import { describe, expect, it } from 'vitest'
import { isFloatKey, pyJsonString, toPythonJson } from './py-json.ts'

// Expected strings are what CPython's json.dumps writes for the same value.
describe('toPythonJson', () => {
  it('uses json.dump separators on one line', () => {
    expect(toPythonJson({ a: 1, b: [1, 2], c: { d: null, e: true } })).toBe(
      '{"a": 1, "b": [1, 2], "c": {"d": null, "e": true}}',
    )
  })

  it('writes numbers under float keys in Python float form', () => {
    expect(toPythonJson({ duration: 2, rtfx: 0, ttfts: [0, 1e-5], p99_ttft_ms: 100, completed: 3 })).toBe(
      '{"duration": 2.0, "rtfx": 0.0, "ttfts": [0.0, 1e-05], "p99_ttft_ms": 100.0, "completed": 3}',
    )
  })

  it('writes non-finite numbers as strings, keeping the file valid JSON', () => {
    const text = toPythonJson({ request_throughput: Number.POSITIVE_INFINITY, duration: Number.NaN })
    expect(text).toBe('{"request_throughput": "inf", "duration": "nan"}')
    expect(() => JSON.parse(text)).not.toThrow()
  })

  it('skips undefined values as JSON.stringify does', () => {
    expect(toPythonJson({ a: undefined, b: 1 })).toBe('{"b": 1}')
  })
})

describe('pyJsonString', () => {
  it('escapes non-ASCII and control characters as ensure_ascii does', () => {
    expect(pyJsonString('é\u007f\n😀"\\\t\u0001')).toBe('"\\u00e9\\u007f\\n\\ud83d\\ude00\\"\\\\\\t\\u0001"')
  })
})

describe('isFloatKey', () => {
  it('knows statistics keys and the float fields', () => {
    expect(isFloatKey('p99.9_itl_ms')).toBe(true)
    expect(isFloatKey('mean_e2el_including_client_queue_ms')).toBe(true)
    expect(isFloatKey('request_rate')).toBe(true)
    expect(isFloatKey('completed')).toBe(false)
    expect(isFloatKey('max_concurrent_requests')).toBe(false)
  })
})
