import { describe, expect, it } from 'vitest'
import type { RequestRecord } from '../config/records.ts'
import { isGood, requestTpotS } from './goodput.ts'

function record(overrides: Partial<RequestRecord>): RequestRecord {
  return {
    success: true,
    error: '',
    generatedText: '',
    promptLen: 10,
    outputTokens: null,
    ttftS: 0.1,
    itlS: [],
    latencyS: 0.5,
    startTimeS: 0,
    requestId: 'r0',
    outputLen: 5,
    arrivalTimeS: 0,
    queueTimeS: 0,
    ...overrides,
  }
}

// Python: calculate_metrics (vllm/benchmarks/serve.py): inclusive SLOs, failed never good, TPOT 0 for ≤ 1 token.
describe('isGood', () => {
  it('accepts a value exactly at the SLO (inclusive)', () => {
    expect(isGood(record({ ttftS: 0.1 }), { ttft: 100 })).toBe(true)
    expect(isGood(record({ latencyS: 0.5 }), { e2el: 500 })).toBe(true)
    // (0.5 - 0.1) / (5 - 1) = 0.1 s per token
    expect(isGood(record({}), { tpot: 100 })).toBe(true)
  })

  it('rejects a value just above the SLO', () => {
    expect(isGood(record({ ttftS: 0.1000001 }), { ttft: 100 })).toBe(false)
    expect(isGood(record({ latencyS: 0.5000001 }), { e2el: 500 })).toBe(false)
  })

  it('needs every configured SLO', () => {
    expect(isGood(record({ ttftS: 0.05, latencyS: 2 }), { ttft: 100, e2el: 1000 })).toBe(false)
    expect(isGood(record({ ttftS: 0.05, latencyS: 0.9 }), { ttft: 100, e2el: 1000 })).toBe(true)
  })

  it('never counts a failed request', () => {
    expect(isGood(record({ success: false, ttftS: 0 }), { ttft: 100 })).toBe(false)
  })

  it('treats a request with one output token as TPOT 0', () => {
    expect(isGood(record({ outputLen: 1, ttftS: 0.01, latencyS: 9 }), { tpot: 0 })).toBe(true)
  })
})

describe('requestTpotS', () => {
  it('divides the time after the first token by the remaining tokens', () => {
    expect(requestTpotS({ latencyS: 1.1, ttftS: 0.1, outputLen: 11 })).toBeCloseTo(0.1, 15)
  })

  it('is null for one output token or fewer', () => {
    expect(requestTpotS({ latencyS: 1, ttftS: 0.1, outputLen: 1 })).toBeNull()
    expect(requestTpotS({ latencyS: 0, ttftS: 0, outputLen: 0 })).toBeNull()
  })
})
