import { describe, expect, it } from 'vitest'
import { computeSteadyState, type SteadyStateOptions, type SteadyStateRequest } from './steady-state.ts'

const req = (
  startTimeS: number,
  latencyS: number,
  extra: Partial<SteadyStateRequest> = {},
): SteadyStateRequest => ({
  success: true,
  startTimeS,
  latencyS,
  ttftS: 0,
  itlS: [],
  promptLen: 0,
  outputLen: 0,
  ...extra,
})

const opts = (
  targetConcurrency: number,
  threshold: number,
  minWindowS: number,
  totalDurationS: number,
  percentiles: number[] = [99],
): SteadyStateOptions => ({ targetConcurrency, threshold, minWindowS, totalDurationS, percentiles })

// Vectors of the Rust port's steady-state tests (metrics/steady_state.rs), notation (start, latency).
describe('computeSteadyState', () => {
  it('opens at the up-crossing and closes at the last down-crossing', () => {
    const requests = [...Array.from({ length: 10 }, (_, i) => req(i, 30)), req(15, 5)]
    const w = computeSteadyState(requests, opts(10, 1, 5, 30))!.window
    expect(w.thresholdAbs).toBe(10)
    expect(w.startS).toBe(9)
    expect(w.endS).toBe(30)
    expect(w.observedPeak).toBe(11)
    expect(w.warning).toBeNull()
  })

  it('finds no window when concurrency never reaches the threshold', () => {
    const requests = Array.from({ length: 5 }, (_, i) => req(10 * i, 1))
    expect(computeSteadyState(requests, opts(5, 0.95, 1, 100))).toBeUndefined()
  })

  it('finds no window from a single failed request', () => {
    expect(computeSteadyState([req(0, 1, { success: false })], opts(1, 1, 0.1, 10))).toBeUndefined()
  })

  it('closes at the last end when concurrency never drops below the threshold', () => {
    const w = computeSteadyState([req(0, 5), req(1, 5)], opts(2, 1, 0.1, 10))!.window
    expect(w).toMatchObject({ thresholdAbs: 2, startS: 1, endS: 5 })
  })

  it('processes ends before starts on equal times', () => {
    const w = computeSteadyState([req(0, 5), req(2, 3), req(5, 2)], opts(2, 1, 0.1, 20))!.window
    expect(w.observedPeak).toBe(2)
  })

  it('warns about a short window', () => {
    const requests = Array.from({ length: 10 }, (_, i) => req(0.1 * i, 1))
    const w = computeSteadyState(requests, opts(10, 1, 5, 10))!.window
    expect(w.warning).toBe('steady-state window is 0.1s (1.0% of run); may not be representative')
  })

  it('spans the whole run when everything starts together', () => {
    const w = computeSteadyState([req(0, 10), req(0, 10), req(0, 10)], opts(3, 1, 0.1, 10))!.window
    expect(w).toMatchObject({ startS: 0, endS: 10 })
  })

  it('counts token chunks, prompt tokens and TPOT inside the half-open window', () => {
    const r = () => req(0, 10, { ttftS: 2, itlS: [2, 2, 2, 2], outputLen: 5, promptLen: 10 })
    const m = computeSteadyState([r(), r(), r()], opts(3, 1, 0.1, 10))!
    expect(m.window.requestsStartedInWindow).toBe(3)
    expect(m.requestThroughput).toBe(0)
    expect(m.outputThroughput).toBeCloseTo(1.2, 12)
    expect(m.inputThroughput).toBeCloseTo(3, 12)
    expect([m.meanTpotMs, m.medianTpotMs, m.p90TpotMs, m.p99TpotMs]).toEqual([2000, 2000, 2000, 2000])
  })

  it('does not credit a late long request with tokens outside the window', () => {
    const early = req(0, 10, { ttftS: 0, itlS: Array(9).fill(1), outputLen: 10 })
    const late = req(9.9, 30, { ttftS: 0.05, itlS: Array(999).fill(0.02), outputLen: 1000 })
    const m = computeSteadyState([early, late], opts(2, 1, 0.1, 40))!
    expect(m.outputThroughput).toBeLessThanOrEqual((10 + 6) / m.window.durationS)
  })

  it('reports no TTFT or TPOT for pooling runs', () => {
    const r = () => req(0, 5, { ttftS: 5, promptLen: 7 })
    const m = computeSteadyState([r(), r()], { ...opts(2, 1, 0.1, 10), isPooling: true })!
    expect([m.meanTtftMs, m.medianTtftMs, m.meanTpotMs, m.p99TpotMs]).toEqual([0, 0, 0, 0])
    expect(m.percentilesTtftMs).toEqual([])
    expect(m.inputThroughput).toBeGreaterThan(0)
  })

  it('reports the TTFT percentiles asked for', () => {
    const requests = Array.from({ length: 5 }, (_, i) =>
      req(i, 20, { ttftS: 1, itlS: Array(9).fill(1), outputLen: 10, promptLen: 100 }),
    )
    const m = computeSteadyState(requests, opts(5, 1, 1, 25, [50, 99]))!
    expect(m.window).toMatchObject({ thresholdAbs: 5, startS: 4, endS: 20, targetConcurrency: 5 })
    expect(m.percentilesTtftMs.map(([p]) => p)).toEqual([50, 99])
  })
})
