import fc from 'fast-check'
import { Tiktoken } from 'js-tiktoken/lite'
import cl100k from 'js-tiktoken/ranks/cl100k_base'
import { describe, expect, it } from 'vitest'
import { loadTokenizer } from './index.ts'
import { TIKTOKEN_ENCODINGS } from './tiktoken.ts'

describe('tiktoken tokenizers', () => {
  it('loads cl100k_base by name', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    expect(tokenizer.kind).toBe('tiktoken')
    expect(tokenizer.vocabSize).toBe(100_277)
    expect(tokenizer.numSpecialTokens).toBe(0)
    expect(await tokenizer.encode('Hello World')).toEqual([9906, 4435])
    expect(await tokenizer.decode([9906, 4435])).toBe('Hello World')
  })

  it('encodes exactly as js-tiktoken does, multi-byte and special tokens included', async () => {
    const reference = new Tiktoken(cl100k)
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const texts = [
      'Hello World, 你好! ',
      "It's   a test\n\n\tof 12345 numbers and émojis 🤖🤖 ...",
      'antidisestablishmentarianism<|endoftext|>tail',
      reference.decode(Array.from({ length: 400 }, (_, j) => 40_000 + j)),
    ]
    for (const text of texts) expect(await tokenizer.encode(text)).toEqual(reference.encode(text, 'all'))
  })

  it('merges long pieces (the heap merge) exactly as js-tiktoken does', async () => {
    const reference = new Tiktoken(cl100k)
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    fc.assert(
      fc.asyncProperty(
        fc.string({
          unit: fc.constantFrom('a', 'b', 'e', 'n', 'r', 'é', 'ß', 'д'),
          minLength: 120,
          maxLength: 600,
        }),
        async (word) => {
          expect(await tokenizer.encode(word)).toEqual(reference.encode(word))
        },
      ),
      { seed: 9_120, numRuns: 30 },
    )
    for (const run of ['a'.repeat(1_500), 'ab'.repeat(800), 'д'.repeat(400)]) {
      expect(await tokenizer.encode(run)).toEqual(reference.encode(run))
    }
  })

  it('skips special tokens when decoding unless asked to keep them', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    expect(await tokenizer.decode([9906, 100_257])).toBe('Hello')
    expect(await tokenizer.decode([9906, 100_257], { skipSpecialTokens: false })).toBe('Hello<|endoftext|>')
  })

  it('allows every ranked id and no special id', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const allowed = tokenizer.allowedTokenIds()
    expect(allowed).toHaveLength(100_256)
    expect(allowed[0]).toBe(0)
    expect(allowed.includes(100_257)).toBe(false)
    expect(allowed.every((id, i) => i === 0 || id > allowed[i - 1]!)).toBe(true)
  })

  it('knows every built-in encoding', () => {
    expect([...TIKTOKEN_ENCODINGS].sort()).toEqual(
      ['cl100k_base', 'gpt2', 'o200k_base', 'p50k_base', 'p50k_edit', 'r50k_base'].sort(),
    )
  })

  it('loads gpt2 with its 50,257 ids', async () => {
    const tokenizer = await loadTokenizer({ id: 'gpt2' })
    expect(tokenizer.vocabSize).toBe(50_257)
    expect(await tokenizer.decode(await tokenizer.encode('calls here'))).toBe('calls here')
  })
})
