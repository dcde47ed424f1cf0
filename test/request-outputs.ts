/** Request outputs for the tests of what sends and collects requests (dispatch, signals, ready check). */
import type { RequestOutput } from '../src/config/records.ts'

/** A successful output with no text and no timings, as the test overrides it. */
export function requestOutput(overrides: Partial<RequestOutput> = {}): RequestOutput {
  return {
    success: true,
    error: '',
    generatedText: '',
    promptLen: 1,
    outputTokens: 0,
    ttftS: 0,
    itlS: [],
    latencyS: 0,
    startTimeS: 0,
    ...overrides,
  }
}
