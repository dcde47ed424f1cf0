import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { LLAMA3_JSON as LLAMA3, QWEN3_JSON as QWEN3, sharedTokenizer } from '../../test/tokenizers.ts'
import { createRng } from '../rng.ts'
import { loadHfTokenizer } from './hf.ts'
import type { Tokenizer } from './index.ts'
import { cutsInsideLetterRun, splitLimits, splitsBefore, textSplitting } from './splitting.ts'

// Llama 3 as shipped cleans up spaces when decoding (so it makes no promise); the same files with
// `clean_up_tokenization_spaces: false` exercise its split pattern.
const llamaDir = mkdtempSync(join(tmpdir(), 'servebench-llama3-'))
afterAll(() => rmSync(llamaDir, { recursive: true, force: true }))
// Loaded once for the file's four tests: parsing Llama 3's tokenizer.json takes seconds.
let llama3Copy: Promise<Tokenizer> | undefined
function llama3WithoutCleanUp(): Promise<Tokenizer> {
  llama3Copy ??= loadLlama3WithoutCleanUp()
  return llama3Copy
}
async function loadLlama3WithoutCleanUp(): Promise<Tokenizer> {
  const tokenizerPath = join(llamaDir, 'tokenizer.json')
  const configPath = join(llamaDir, 'tokenizer_config.json')
  writeFileSync(tokenizerPath, readFileSync(LLAMA3))
  const config = JSON.parse(readFileSync(join(LLAMA3, '../tokenizer_config.json'), 'utf8'))
  writeFileSync(configPath, JSON.stringify({ ...config, clean_up_tokenization_spaces: false }))
  return loadHfTokenizer(llamaDir, { tokenizerPath, configPath })
}

// Texts like the random dataset's: decoded runs of consecutive vocabulary ids, plus hand-made
// edge cases (whitespace runs, newlines, punctuation, contractions, digits, marks, non-BMP
// characters, CJK with its punctuation, added tokens' texts, a byte order mark).
async function sampleTexts(tokenizer: Tokenizer, count: number): Promise<string[]> {
  const allowed = tokenizer.allowedTokenIds()
  const rng = createRng(7)
  const texts = [
    "It's  a test.\n\n  Done   now, isn't it? 12345 x  \t y \u00e9t\u00e9 e\u0301 \u{1F600} ok",
    'a ,b  .c\r\n d\u00a0 e 1 2  3 ?! \u4e2d\u6587 \u0627\u0644 done',
    "word's WORD'S ab'cd x1y2 3.14 a-b a_b a/b\n\ny=x;z\u00ad\ufeffq \u{1D400}\u{1D401}c.d \u0928\u093f\u0928",
    '\u4e2d\u6587\u5b57\u7b26\u3002English\u3001\u6570\u5b57\uff14\uff15\u300c\u5f15\u7528\u300d\ud55c\uad6d\uc5b4.\u30c6\u30ad\u30b9\u30c8!',
    'x<|endoftext|>y <|im_start|>user\nhi<|im_end|> <think>ok</think><tool_call>a</tool_call>',
  ]
  for (let i = 0; i < count; i++) {
    const offset = rng.int(0, allowed.length - 1)
    const ids = Array.from({ length: 120 }, (_, j) => allowed[(offset + j) % allowed.length]!)
    texts.push(await tokenizer.decode(ids))
  }
  return texts
}

// A long run of CJK letters behind some other text, then punctuation and more text.
function letterRunText(seed: number): string {
  const rng = createRng(seed)
  let run = ''
  for (let i = 0; i < 150; i++) run += String.fromCodePoint(rng.int(0x4e00, 0x9fa5))
  return `Intro, ${run}\u3002 then ${run.slice(0, 60)}`
}

const cases: Array<[string, () => Promise<Tokenizer>]> = [
  ['cl100k_base', () => sharedTokenizer('cl100k_base')],
  ['o200k_base', () => sharedTokenizer('o200k_base')],
  ['gpt2', () => sharedTokenizer('gpt2')],
  ['qwen3', () => sharedTokenizer(QWEN3)],
  ['llama3 without space clean-up', llama3WithoutCleanUp],
]

describe.each(cases)('space splitting of %s', { timeout: 30_000 }, (_name, load) => {
  it('encodes a text as its head and tail at every split point', async () => {
    const tokenizer = await load()
    const splitting = textSplitting(tokenizer)!
    expect(splitting).toBeDefined()
    const { joins } = await splitLimits(tokenizer, splitting)
    let spaces = 0
    let others = 0
    for (const text of await sampleTexts(tokenizer, 12)) {
      const whole = await tokenizer.encode(text)
      let bytes = 0
      for (const id of whole) bytes += splitting.byteLength(id)
      if (!splitting.keepsBytes(text)) continue
      if (!text.includes('<|')) expect(bytes).toBe(Buffer.byteLength(text))
      for (let at = 1; at < text.length; at++) {
        const code = text.charCodeAt(at)
        if (code >= 0xdc00 && code < 0xe000) continue
        if (!splitsBefore(text, at, joins)) continue
        const joined = [
          ...(await tokenizer.encode(text.slice(0, at))),
          ...(await tokenizer.encode(text.slice(at))),
        ]
        expect(joined, `${JSON.stringify(text)} split at ${at}`).toEqual(whole)
        if (text[at] === ' ') spaces++
        else others++
      }
    }
    expect(spaces).toBeGreaterThan(100)
    expect(others).toBeGreaterThan(30)
  })

  it('splits nowhere inside an added token or before a mark, apostrophe or byte order mark; cuts only long runs', async () => {
    const tokenizer = await load()
    const { joins } = await splitLimits(tokenizer, textSplitting(tokenizer)!)
    const text = 'x<|endoftext|>y'
    expect(splitsBefore(text, 1, joins)).toBe(true)
    for (let at = 2; at < text.length; at++) expect(splitsBefore(text, at, joins), `at ${at}`).toBe(false)
    expect(splitsBefore("it's", 2, joins)).toBe(false)
    expect(splitsBefore('e\u0301', 1, joins)).toBe(false)
    expect(splitsBefore('a\ufeffb', 1, joins)).toBe(false)
    expect(splitsBefore('ab.c', 2, joins)).toBe(true)
    expect(splitsBefore('a.bc', 2, joins)).toBe(false)
    const run = letterRunText(1).slice(7, 107)
    expect(cutsInsideLetterRun(` ${run}`, 90, 128)).toBe(true)
    expect(cutsInsideLetterRun(`a${run}`, 90, 128)).toBe(false)
    expect(cutsInsideLetterRun(` ${run}`, 20, 128)).toBe(false)
  })

  it('encodes a long letter run cut where one of its tokens starts as the tokens before', async () => {
    const tokenizer = await load()
    const splitting = textSplitting(tokenizer)!
    const { maxTokenBytes } = await splitLimits(tokenizer, splitting)
    let cuts = 0
    for (const seed of [1, 2, 3]) {
      const text = letterRunText(seed)
      const whole = await tokenizer.encode(text)
      const utf8 = Buffer.from(text)
      let bytes = 0
      for (let index = 0; index < whole.length; index++) {
        const head = utf8.subarray(0, bytes).toString()
        // Where a token starts at a character boundary (every third, to keep the test fast).
        if (
          index % 3 === 0 &&
          text.startsWith(head) &&
          cutsInsideLetterRun(text, head.length, maxTokenBytes)
        ) {
          expect(await tokenizer.encode(head), `cut at ${head.length}`).toEqual(whole.slice(0, index))
          cuts++
        }
        bytes += splitting.byteLength(whole[index]!)
      }
    }
    expect(cuts).toBeGreaterThan(10)
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
      // Special tokens decode to nothing (skipped).
      if (ids.some((id) => splitting.byteLength(id) < 0)) continue
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
    expect(textSplitting(await sharedTokenizer(LLAMA3))).toBeUndefined()
  })

  it('is not promised for a copy of a tokenizer (its methods may differ)', async () => {
    const tokenizer = await sharedTokenizer('cl100k_base')
    expect(textSplitting({ ...tokenizer })).toBeUndefined()
  })
})
