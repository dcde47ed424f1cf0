import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { segmentConcurrency, segmentShare } from './segments.ts'

describe('segments', () => {
  it('the segments of a schedule are disjoint and together send every request once', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 16 }), (length, count) => {
        const items = Array.from({ length }, (_, i) => i)
        const shares = Array.from({ length: count }, (_, index) =>
          segmentShare(items, { index, count, source: '--segment' }),
        )
        expect(shares.flat().sort((a, b) => a - b)).toEqual(items)
        for (const [index, share] of shares.entries())
          expect(share.every((i) => i % count === index)).toBe(true)
      }),
    )
  })

  it('splits --max-concurrency over the segments as k6 splits VUs, at least 1 each', () => {
    const split = (c: number, n: number) =>
      Array.from({ length: n }, (_, index) => segmentConcurrency(c, { index, count: n, source: '--segment' }))
    expect(split(10, 4)).toEqual([3, 3, 2, 2])
    expect(split(2, 4)).toEqual([1, 1, 1, 1])
    expect(segmentConcurrency(7, undefined)).toBe(7)
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 64 }), (c, n) => {
        const shares = split(c, n)
        expect(shares.reduce((a, b) => a + b, 0)).toBe(Math.max(c, n))
      }),
    )
  })
})
