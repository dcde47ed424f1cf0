import { describe, expect, it } from 'vitest'
import { createRng } from '../rng.ts'
import { blockBootstrapChange } from './block-bootstrap.ts'
import { decideChange } from './decide.ts'
import { bufferStatistic } from './fast-statistic.ts'
import { steadySpan, type TimelineRequest, windowRuns, windowThroughputs } from './window-throughput.ts'

/**
 * A synthetic closed loop on a busy runner: `slots` requests in flight, each slot sending its next
 * request when the previous one ends; 32 output tokens at `itlMs` apart, a TTFT around 30 ms, and a
 * runner whose speed drifts every half second (±8%, shared by all requests then in flight).
 */
function closedLoopRun(seed: number, itlMs: number, slots = 8, perSlot = 12): TimelineRequest[] {
  const rng = createRng(seed)
  const drift = Array.from({ length: 200 }, () => Math.exp(0.08 * rng.normal()))
  const speed = (t: number): number => drift[Math.min(drift.length - 1, Math.floor(t / 0.5))]!
  const out: TimelineRequest[] = []
  for (let s = 0; s < slots; s++) {
    let t = s * 0.001
    for (let k = 0; k < perSlot; k++) {
      const ttftS = 0.03 * Math.exp(0.2 * rng.normal()) * speed(t)
      const itlsS: number[] = []
      let at = t + ttftS
      for (let i = 1; i < 32; i++) {
        const gap = (itlMs / 1000) * Math.exp(0.1 * rng.normal()) * speed(at)
        itlsS.push(gap)
        at += gap
      }
      out.push({ success: true, startS: t, latencyS: at - t, ttftS, itlsS, inputLen: 128, outputLen: 32 })
      t = at
    }
  }
  return out
}

describe('steadySpan', () => {
  it('runs from the start at rank ⌈n/10⌉ to the last start, or follows steady_state', () => {
    const run = closedLoopRun(1, 10)
    const starts = run.map((r) => r.startS).sort((a, b) => a - b)
    expect(steadySpan(run)).toEqual({ startS: starts[9]!, endS: starts[95]! })
    expect(steadySpan(run, { startS: 0.5, endS: 2 })).toEqual({
      startS: starts[0]! + 0.5,
      endS: starts[0]! + 2,
    })
    expect(steadySpan(run.slice(0, 1))).toBeUndefined()
  })
})

describe('windowThroughputs', () => {
  it('counts every output token of the span once, at the measured rate', () => {
    const run = closedLoopRun(2, 10)
    const w = windowThroughputs(run, 'output')
    expect(w.rates.length).toBeGreaterThanOrEqual(4)
    const mean = w.rates.reduce((a, b) => a + b, 0) / w.rates.length
    // 8 streams at one token per ~10 ms: about 800 tokens/s.
    expect(mean).toBeGreaterThan(650)
    expect(mean).toBeLessThan(900)
  })

  it('counts completions for requests/s and adds prefilled input tokens for total', () => {
    const run = closedLoopRun(3, 10)
    const span = { startS: 0, endS: 10 }
    const requests = windowThroughputs(run, 'request', { span, windowS: 10 })
    expect(requests.rates).toEqual([96 / 10])
    const total = windowThroughputs(run, 'total', { span, windowS: 10 })
    expect(total.rates[0]).toBeCloseTo((96 * (128 + 32)) / 10, 6)
  })

  it('has no windows without a steady part', () => {
    expect(windowThroughputs([], 'output').rates).toEqual([])
  })
})

describe('windowed throughput comparison (one short run at concurrency 8, 96 requests)', () => {
  const mean = bufferStatistic('mean')!
  const verdictOf = (base: TimelineRequest[], current: TimelineRequest[]): string => {
    const change = blockBootstrapChange(
      windowRuns([windowThroughputs(base, 'output').rates]),
      windowRuns([windowThroughputs(current, 'output').rates]),
      mean,
      'higher-is-better',
    )
    return decideChange({
      change: change.relative,
      interval: change.interval,
      pValue: change.pValue,
      direction: 'higher-is-better',
      tolerance: 0.1,
      n: current.length,
    }).verdict
  }

  it('fails a 15% output-throughput drop in at least 18 of 20 seeded pairs', () => {
    let fails = 0
    for (let seed = 0; seed < 20; seed++)
      if (verdictOf(closedLoopRun(seed, 10), closedLoopRun(seed + 100, 10 / 0.85)) === 'fail') fails++
    expect(fails).toBeGreaterThanOrEqual(18)
  })

  it('never fails an unchanged run in 20 seeded pairs', () => {
    const verdicts = Array.from({ length: 20 }, (_, seed) =>
      verdictOf(closedLoopRun(seed, 10), closedLoopRun(seed + 100, 10)),
    )
    expect(verdicts).not.toContain('fail')
  })
})
