import { describe, expect, it } from 'vitest'
import { isFloatKey, parsePythonJson, pyJsonString, toPythonJson } from './py-json.ts'

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

  it('writes non-finite numbers bare, as json.dump does, and reads them back as numbers', () => {
    const value = {
      burstiness: Number.POSITIVE_INFINITY,
      duration: Number.NaN,
      x: [Number.NEGATIVE_INFINITY],
    }
    const text = toPythonJson(value)
    expect(text).toBe('{"burstiness": Infinity, "duration": NaN, "x": [-Infinity]}')
    expect(parsePythonJson(text)).toEqual(value)
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

describe('parsePythonJson', () => {
  it('leaves the tokens alone inside strings, escaped quotes included', () => {
    const text = '{"t": "NaN, Infinity \\" -Infinity", "n": NaN, "a": [1, -Infinity, -2]}'
    expect(parsePythonJson(text)).toEqual({
      t: 'NaN, Infinity " -Infinity',
      n: Number.NaN,
      a: [1, Number.NEGATIVE_INFINITY, -2],
    })
  })

  it('is JSON.parse on strict JSON, and fails as it does on anything else', () => {
    expect(parsePythonJson('{"a": "Infinity"}')).toEqual({ a: 'Infinity' })
    expect(() => parsePythonJson('{"a": Inf}')).toThrow(SyntaxError)
    expect(() => parsePythonJson('{"a": NaNa}')).toThrow(SyntaxError)
  })
})
