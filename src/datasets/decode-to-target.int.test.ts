import { describe, expect, it } from 'vitest'
import { QWEN3_JSON as QWEN3, sharedTokenizer } from '../../test/tokenizers.ts'
import { createRng } from '../rng.ts'
import type { Tokenizer } from '../tokenizer/index.ts'
import { textSplitting, withTextSplitting } from '../tokenizer/splitting.ts'
import { decodeToTargetLen } from './decode-to-target.ts'

// Counts the characters it encodes; keeps the splitting promise of what it wraps.
function counting(tokenizer: Tokenizer): { tokenizer: Tokenizer; encodedChars: () => number } {
  let chars = 0
  const wrapped: Tokenizer = {
    ...tokenizer,
    encode: (text, options) => {
      chars += text.length
      return tokenizer.encode(text, options)
    },
  }
  const splitting = textSplitting(tokenizer)
  return {
    tokenizer: splitting === undefined ? wrapped : withTextSplitting(wrapped, splitting),
    encodedChars: () => chars,
  }
}

describe.each([
  ['cl100k_base', 'cl100k_base'],
  ['qwen3', QWEN3],
])('decodeToTargetLen with %s', { timeout: 30_000 }, (_name, id) => {
  it('fits prompts exactly as full decode/encode rounds do, re-encoding only their ends', async () => {
    const tokenizer = await sharedTokenizer(id)
    const allowed = tokenizer.allowedTokenIds()
    // A copy makes no splitting promise, so it runs every round on the whole text.
    const full = counting({ ...tokenizer })
    const split = counting(tokenizer)
    const rng = createRng(3)
    let fitted = 0
    for (let i = 0; i < 30; i++) {
      const offset = rng.int(0, allowed.length - 1)
      const ids = Array.from({ length: 300 }, (_, j) => allowed[(offset + j) % allowed.length]!)
      // Targets below, at and above the drawn length: truncation and padding rounds.
      const target = 300 + rng.int(-40, 40)
      const expected = await decodeToTargetLen(full.tokenizer, ids, target, allowed)
      const actual = await decodeToTargetLen(split.tokenizer, ids, target, allowed)
      expect(actual).toEqual(expected)
      expect(await tokenizer.encode(actual.prompt)).toEqual(actual.ids)
      if (actual.mismatch === 0) fitted++
    }
    expect(fitted).toBeGreaterThan(25)
    // The first round encodes the whole text either way; later rounds only a few words.
    expect(split.encodedChars()).toBeLessThan(0.7 * full.encodedChars())
  })

  it('stops encoding the first round once it holds the ids the next round keeps', async () => {
    const tokenizer = await sharedTokenizer(id)
    const allowed = tokenizer.allowedTokenIds()
    const split = counting(tokenizer)
    const ids = Array.from({ length: 300 }, (_, j) => allowed[(5_000 + j) % allowed.length]!)
    const text = await tokenizer.decode(ids)
    const fitted = await decodeToTargetLen(split.tokenizer, ids, 250, allowed)
    expect(fitted).toEqual(await decodeToTargetLen({ ...tokenizer }, ids, 250, allowed))
    expect(split.encodedChars()).toBeLessThan(0.95 * text.length)
  })

  it('gives up after maxRounds with the residual mismatch, the same on both paths', async () => {
    const tokenizer = await sharedTokenizer(id)
    const allowed = tokenizer.allowedTokenIds()
    const ids = Array.from({ length: 200 }, (_, j) => allowed[(5_000 + j) % allowed.length]!)
    const expected = await decodeToTargetLen({ ...tokenizer }, ids, 200, allowed, 1)
    const actual = await decodeToTargetLen(tokenizer, ids, 200, allowed, 1)
    expect(actual).toEqual(expected)
    expect(actual.mismatch).toBe(actual.ids.length - 200)
  })
})

describe('decodeToTargetLen with qwen3 on text without spaces', { timeout: 30_000 }, () => {
  it('fits runs of CJK words and text that NFC changes as full rounds do, re-encoding little after the first round', async () => {
    const tokenizer = await sharedTokenizer(QWEN3)
    const allowed = tokenizer.allowedTokenIds()
    const full = counting({ ...tokenizer })
    const split = counting(tokenizer)
    const kinds = { cjk: 0, nfc: 0 }
    let firstRounds = 0
    // Windows of the vocabulary: CJK words (no space, no split point but punctuation), and
    // symbols and emoji that NFC rewrites; targets below and above the drawn length.
    for (const [i, offset] of [
      100_012, 105_018, 110_024, 115_030, 132_551, 145_066, 147_569, 150_072,
    ].entries()) {
      const ids = allowed.slice(offset, offset + 300)
      const text = await tokenizer.decode(ids)
      if (text.normalize('NFC') !== text) kinds.nfc++
      else if (!/\s/.test(text)) kinds.cjk++
      firstRounds += text.length
      const target = i % 2 === 0 ? 290 : 310
      const expected = await decodeToTargetLen(full.tokenizer, ids, target, allowed)
      const actual = await decodeToTargetLen(split.tokenizer, ids, target, allowed)
      expect(actual).toEqual(expected)
      expect(await tokenizer.encode(actual.prompt)).toEqual(actual.ids)
    }
    expect(kinds).toEqual({ cjk: 4, nfc: 4 })
    expect(split.encodedChars() - firstRounds).toBeLessThan(0.25 * (full.encodedChars() - firstRounds))
  })
})

describe('decodeToTargetLen with qwen3 and padding that NFC changes', { timeout: 30_000 }, () => {
  it('reads the text of a re-encoded tail from its ids when NFC changed it, as full rounds do', async () => {
    const tokenizer = await sharedTokenizer(QWEN3)
    const allowed = tokenizer.allowedTokenIds()
    // Tokens whose text NFC rewrites: a tail padded with them encodes as other bytes than its text,
    // so the next round cannot cut that text by the ids' byte lengths.
    const rewritten: number[] = []
    for (const id of allowed) {
      const text = await tokenizer.decode([id])
      if (text.normalize('NFC') !== text && !text.includes('\ufffd')) rewritten.push(id)
    }
    // Windows and targets (padding rounds) where a later round cuts after such a tail.
    for (const [offset, target] of [
      [42_319, 79],
      [83_513, 78],
      [11_169, 79],
      [14_771, 79],
      [45_031, 74],
    ] as const) {
      const ids = allowed.slice(offset, offset + 60)
      const padding = [...rewritten.slice(0, 30), ...allowed.slice(offset, offset + 30)]
      const expected = await decodeToTargetLen({ ...tokenizer }, ids, target, padding)
      const actual = await decodeToTargetLen(tokenizer, ids, target, padding)
      expect(actual).toEqual(expected)
      expect(await tokenizer.encode(actual.prompt)).toEqual(actual.ids)
    }
  })
})
