import { describe, expect, it } from 'vitest'
import { filterByMaxModelLen, oversample, parseJsonl, shuffled } from './sampling.ts'

describe('dataset sampling helpers', () => {
  // The Rust port's test (datasets/mod.rs): oversample 2 → 5; with no_oversample 1 stays 1.
  it('oversamples to n with repeats of the originals, or not at all', () => {
    const out = oversample(['a', 'b'], 5, 0, false)
    expect(out).toHaveLength(5)
    expect(out.slice(0, 2)).toEqual(['a', 'b'])
    for (const x of out) expect(['a', 'b']).toContain(x)
    expect(oversample(['a'], 5, 0, true)).toEqual(['a'])
    expect(oversample(['a', 'b', 'c'], 2, 0, false)).toEqual(['a', 'b', 'c'])
    expect(oversample(['a', 'b'], 9, 3, false)).toEqual(oversample(['a', 'b'], 9, 3, false))
  })

  // The Rust port's test (datasets/mod.rs): max-model-len 100 on (80,20), (81,20), (30,10) → 1 filtered (the bound is inclusive).
  it('filters by max model length inclusively', () => {
    const requests = [
      { promptLen: 80, expectedOutputLen: 20 },
      { promptLen: 81, expectedOutputLen: 20 },
      { promptLen: 30, expectedOutputLen: 10 },
    ]
    const { kept, dropped } = filterByMaxModelLen(requests, 100)
    expect(dropped).toBe(1)
    expect(kept.map((r) => r.promptLen)).toEqual([80, 30])
  })

  it('shuffles reproducibly and keeps order when disabled', () => {
    const items = Array.from({ length: 20 }, (_, i) => i)
    expect(shuffled(items, 1, true)).toEqual(items)
    expect(shuffled(items, 1, false)).toEqual(shuffled(items, 1, false))
    expect(shuffled(items, 1, false)).not.toEqual(items)
  })

  it('parses JSONL with line numbers that count blank lines', () => {
    expect(parseJsonl('x', 'f.jsonl', '{"a":1}\n\n{"a":2}\n', 5)).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 3, value: { a: 2 } },
    ])
    expect(parseJsonl('x', 'f.jsonl', '{"a":1}\n{"a":2}\n', 1)).toHaveLength(1)
    expect(() => parseJsonl('x', 'f.jsonl', '{"a":1}\n[1]\n')).toThrow(
      'x: f.jsonl:2: each line must be a JSON object',
    )
  })
})
