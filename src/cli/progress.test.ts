import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createProgress, formatProgress, type ProgressState } from './progress.ts'

// A stream that keeps what was written, a terminal or not.
function sink(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk))
      done()
    },
  })
  return Object.assign(stream, { isTTY, text: () => chunks.join('') })
}

const state = (over: Partial<ProgressState>): ProgressState => ({
  done: 0,
  total: 100,
  inFlight: 8,
  completed: 0,
  elapsedS: 0,
  latency: 'TTFT',
  latenciesMs: [],
  ...over,
})

describe('live progress', () => {
  it('says what is done, in flight, the rate, TTFT so far and the time left', () => {
    expect(
      formatProgress(state({ done: 41, completed: 40, elapsedS: 4, latenciesMs: [30, 10, 20, 400] })),
    ).toBe('41/100 done · 8 in flight · 10.00 req/s · TTFT p50 25.0 / p99 389 ms · 5.8 s left')
    expect(formatProgress(state({ done: 100, completed: 99, inFlight: 0, elapsedS: 9.9 }))).toBe(
      '100/100 done · 0 in flight · 10.00 req/s',
    )
    expect(formatProgress(state({ done: 0 }))).toBe('0/100 done · 8 in flight')
    expect(
      formatProgress(state({ done: 3, completed: 3, elapsedS: 1, latency: 'E2EL', latenciesMs: [5] })),
    ).toBe('3/100 done · 8 in flight · 3.00 req/s · E2EL p50 5.0 / p99 5.0 ms · 32.3 s left')
  })

  it("gives the result's request throughput: a burst that ends at once is not a rate of its own", () => {
    // 20 requests sent together that all end after 3.3 s: 6.06 req/s, as the final table says, not
    // the 19 requests over the few ms between the first end and the last.
    const out = sink(false)
    const progress = createProgress(out, true)
    for (let done = 1; done <= 20; done++)
      progress.update(done, 20, { inFlight: 20 - done, success: true, elapsedS: 3.3 + done * 1e-4 })
    progress.finish()
    expect(out.text()).toBe(
      'progress: 1/20 done · 19 in flight · 0.30 req/s · 62.7 s left\nprogress: 20/20 done · 0 in flight · 6.06 req/s\n',
    )
  })

  it('writes a plain line every few seconds of the run and at the end when stderr is not a terminal', () => {
    const out = sink(false)
    const progress = createProgress(out, true, { plainEveryMs: 5_000 })
    for (let done = 1; done <= 20; done++)
      progress.update(done, 20, {
        inFlight: Math.min(4, 20 - done),
        success: true,
        elapsedS: done,
        ttftS: 0.05,
      })
    progress.finish()
    const lines = out
      .text()
      .split('\n')
      .filter((l) => l !== '')
    expect(lines).toEqual([
      'progress: 1/20 done · 4 in flight · 1.00 req/s · TTFT p50 50.0 / p99 50.0 ms · 19.0 s left',
      'progress: 6/20 done · 4 in flight · 1.00 req/s · TTFT p50 50.0 / p99 50.0 ms · 14.0 s left',
      'progress: 11/20 done · 4 in flight · 1.00 req/s · TTFT p50 50.0 / p99 50.0 ms · 9.0 s left',
      'progress: 16/20 done · 4 in flight · 1.00 req/s · TTFT p50 50.0 / p99 50.0 ms · 4.0 s left',
      'progress: 20/20 done · 0 in flight · 1.00 req/s · TTFT p50 50.0 / p99 50.0 ms',
    ])
  })

  it('redraws one line in place on a terminal, at most every 100 ms, and ends it', () => {
    const out = sink(true)
    const progress = createProgress(out, true)
    progress.update(1, 3, { inFlight: 2, success: true, elapsedS: 0.01 })
    progress.update(2, 3, { inFlight: 1, success: false, elapsedS: 0.05 })
    progress.update(3, 3, { inFlight: 0, success: true, elapsedS: 0.06 })
    progress.finish()
    const draws = out
      .text()
      .split('\r')
      .filter((d) => d !== '')
    expect(draws).toHaveLength(2)
    expect(draws[1]).toBe('100%|████████████████████| 3/3 done · 0 in flight · 33.33 req/s\u001b[K\n')
    expect(createProgress(out, false).update).toBeTypeOf('function')
  })
})
