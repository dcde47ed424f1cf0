import { describe, expect, it } from 'vitest'
import { loadTokenizer } from '../../tokenizer/index.ts'
import { generateRequests } from '../index.ts'
import type { PrefixRepetitionDatasetConfig } from './prefix-repetition.ts'

function config(overrides: Partial<PrefixRepetitionDatasetConfig> = {}): PrefixRepetitionDatasetConfig {
  return {
    kind: 'prefix_repetition',
    prefixLen: 32,
    suffixLen: 16,
    numPrefixes: 3,
    outputLen: 64,
    disableShuffle: true,
    ...overrides,
  }
}

function commonPrefix(a: string, b: string): number {
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return i
}

describe('prefix_repetition dataset', () => {
  // The Rust port's test (datasets/prefix_repetition.rs): 7 requests, 3 prefixes, prefix 32, suffix 16, out 64, no shuffle.
  it('makes floor(n / prefixes) requests per prefix, each exactly prefix + suffix tokens', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const requests = await generateRequests(config(), { tokenizer, numPrompts: 7, seed: 0 })
    expect(requests).toHaveLength(6)
    for (const r of requests) {
      expect(r.promptLen).toBe(48)
      expect((await tokenizer.encode(r.prompt)).length).toBe(48)
      expect(r.expectedOutputLen).toBe(64)
    }
    const [a, b, c] = requests.map((r) => r.prompt)
    expect(commonPrefix(a!, b!)).toBeGreaterThan(commonPrefix(a!, c!))
  })

  it('interleaves prefix groups when shuffled, reproducibly', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const ordered = await generateRequests(config(), { tokenizer, numPrompts: 9, seed: 5 })
    const shuffled = await generateRequests(config({ disableShuffle: false }), {
      tokenizer,
      numPrompts: 9,
      seed: 5,
    })
    expect(shuffled.map((r) => r.prompt).sort()).toEqual(ordered.map((r) => r.prompt).sort())
    expect(shuffled.map((r) => r.prompt)).not.toEqual(ordered.map((r) => r.prompt))
    expect(
      await generateRequests(config({ disableShuffle: false }), { tokenizer, numPrompts: 9, seed: 5 }),
    ).toEqual(shuffled)
  })

  it('rejects more prefixes than prompts', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    await expect(generateRequests(config(), { tokenizer, numPrompts: 2, seed: 0 })).rejects.toThrow(
      '--prefix-repetition-num-prefixes must be at most --num-prompts (got 3 prefixes for 2 prompts)',
    )
  })
})
