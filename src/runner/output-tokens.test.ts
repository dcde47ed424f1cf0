import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { loadTokenizer } from '../tokenizer/index.ts'
import { countOutputTokens, MAX_RUN_CHARS, SEGMENT_CHARS, segmentsOf } from './output-tokens.ts'

describe('segmentsOf', () => {
  it('joins back to the text, with no run of non-space characters longer than the cap', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'é', ' ', '\n', '😀', 'b'), maxLength: 2_000 }),
        (text) => {
          const segments = segmentsOf(text)
          expect(segments.join('')).toBe(text)
          for (const segment of segments) {
            for (const run of segment.split(/\s+/)) expect(run.length).toBeLessThanOrEqual(MAX_RUN_CHARS + 1)
          }
        },
      ),
      { seed: 20_261_201, numRuns: 200 },
    )
  })

  it('cuts ordinary text only before whitespace, about every SEGMENT_CHARS', () => {
    const text = 'lorem ipsum dolor '.repeat(5_000)
    const segments = segmentsOf(text)
    expect(segments.length).toBeGreaterThan(1)
    for (const segment of segments.slice(1)) expect(segment[0]).toBe(' ')
    for (const segment of segments.slice(0, -1)) expect(segment.length).toBeLessThan(SEGMENT_CHARS + 20)
  })

  it('cuts a 256 KB word into pieces of the run cap', () => {
    const segments = segmentsOf('a'.repeat(256 * 1024))
    expect(segments).toHaveLength((256 * 1024) / MAX_RUN_CHARS)
  })
})

describe('countOutputTokens', () => {
  it('equals encoding the whole text at once for ordinary text', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const text =
      'The quick brown fox, jumping over 12 lazy dogs.\n\n  Indented line; more words here. '.repeat(2_000)
    expect(await countOutputTokens(text, tokenizer)).toBe((await tokenizer.encode(text)).length)
  })

  it('counts a 256 KB word without spaces', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const count = await countOutputTokens('a'.repeat(256 * 1024), tokenizer)
    // cl100k merges runs of "a" into tokens of up to 8 or more letters.
    expect(count).toBeGreaterThan((256 * 1024) / 64)
    expect(count).toBeLessThan(256 * 1024)
  })
})
