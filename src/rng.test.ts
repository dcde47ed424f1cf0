import { describe, expect, it } from 'vitest'
import { createRng } from './rng.ts'

describe('createRng', () => {
  it('gives the same stream for the same seed and another for another seed', () => {
    const a = createRng(42)
    const b = createRng(42)
    const c = createRng(43)
    const seqA = Array.from({ length: 5 }, () => a.next())
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(seqA)
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(seqA)
  })

  it('draws uniform values in [0, 1) with mean near 1/2', () => {
    const rng = createRng(1)
    const xs = Array.from({ length: 20_000 }, () => rng.next())
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...xs)).toBeLessThan(1)
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeCloseTo(0.5, 1)
  })

  it('draws gamma variates with mean shape × scale, for shapes below and above 1', () => {
    const rng = createRng(7)
    for (const shape of [0.5, 1, 4]) {
      const xs = Array.from({ length: 20_000 }, () => rng.gamma(shape, 2))
      const mean = xs.reduce((s, x) => s + x, 0) / xs.length
      expect(mean).toBeGreaterThan(shape * 2 * 0.95)
      expect(mean).toBeLessThan(shape * 2 * 1.05)
    }
  })

  it('draws integers inclusive of both bounds', () => {
    const rng = createRng(3)
    const seen = new Set(Array.from({ length: 1000 }, () => rng.int(2, 4)))
    expect([...seen].sort()).toEqual([2, 3, 4])
  })
})
