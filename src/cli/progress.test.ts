import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createProgress, formatProgress } from './progress.ts'

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

describe('live progress', () => {
  it('says what is done, in flight, the rate, TTFT so far and the time left', () => {
    expect(
      formatProgress({ done: 41, total: 100, inFlight: 8, sinceFirstS: 4, ttftsMs: [30, 10, 20, 400] }),
    ).toBe('41/100 done · 8 in flight · 10.00 req/s · TTFT p50 25.0 / p99 389 ms · 5.9 s left')
    expect(formatProgress({ done: 100, total: 100, inFlight: 0, sinceFirstS: 9.9, ttftsMs: [] })).toBe(
      '100/100 done · 0 in flight · 10.00 req/s',
    )
    // One request says nothing about a rate yet.
    expect(formatProgress({ done: 1, total: 100, inFlight: 8, sinceFirstS: 0, ttftsMs: [] })).toBe(
      '1/100 done · 8 in flight',
    )
  })

  it('writes a plain line every few seconds and at the end when stderr is not a terminal', () => {
    let now = 0
    const out = sink(false)
    const progress = createProgress(out, true, { nowMs: () => now, plainEveryMs: 5_000 })
    for (let done = 1; done <= 20; done++) {
      now = done * 1_000
      progress.update(done, 20, { inFlight: Math.min(4, 20 - done), ttftS: 0.05 })
    }
    progress.finish()
    const lines = out
      .text()
      .split('\n')
      .filter((l) => l !== '')
    expect(lines).toEqual([
      'progress: 1/20 done · 4 in flight · TTFT p50 50.0 / p99 50.0 ms',
      'progress: 6/20 done · 4 in flight · 1.00 req/s · TTFT p50 50.0 / p99 50.0 ms · 14.0 s left',
      'progress: 11/20 done · 4 in flight · 1.00 req/s · TTFT p50 50.0 / p99 50.0 ms · 9.0 s left',
      'progress: 16/20 done · 4 in flight · 1.00 req/s · TTFT p50 50.0 / p99 50.0 ms · 4.0 s left',
      'progress: 20/20 done · 0 in flight · 1.00 req/s · TTFT p50 50.0 / p99 50.0 ms',
    ])
  })

  it('redraws one line in place on a terminal, at most every 100 ms, and ends it', () => {
    let now = 0
    const out = sink(true)
    const progress = createProgress(out, true, { nowMs: () => now })
    progress.update(1, 3, { inFlight: 2 })
    now = 50
    progress.update(2, 3, { inFlight: 1 })
    now = 60
    progress.update(3, 3, { inFlight: 0 })
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
