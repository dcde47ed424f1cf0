import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadTokenizer } from '../../tokenizer/index.ts'
import { generateRequests } from '../index.ts'
import type { CustomDatasetConfig } from './custom.ts'

const FIXTURE = resolve(import.meta.dirname, '../../../fixtures/datasets/custom.jsonl')

function custom(overrides: Partial<CustomDatasetConfig> = {}): CustomDatasetConfig {
  return {
    kind: 'custom',
    path: FIXTURE,
    outputLen: 256,
    skipChatTemplate: true,
    disableShuffle: false,
    noOversample: false,
    ...overrides,
  }
}

async function tmpJsonl(lines: string[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'servebench-custom-')), 'data.jsonl')
  await writeFile(path, `${lines.join('\n')}\n`)
  return path
}

describe('custom dataset', () => {
  it('sends each line raw with the fixed output length and its exact token count', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const requests = await generateRequests(custom({ disableShuffle: true }), {
      tokenizer,
      numPrompts: 6,
      seed: 0,
    })
    expect(requests).toHaveLength(6)
    // The Rust port's test (datasets/custom.rs): custom 2 lines, output 256 → both 256; first prompt "hello world".
    expect(requests[0]!.prompt).toBe('hello world')
    for (const r of requests) {
      expect(r.expectedOutputLen).toBe(256)
      expect(r.promptLen).toBe((await tokenizer.encode(r.prompt, { addSpecialTokens: true })).length)
      expect(r.promptLen).toBeGreaterThan(0)
      expect(r.promptTokenIds).toBeUndefined()
    }
  })

  it('takes each line output_tokens with -1', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const requests = await generateRequests(custom({ outputLen: -1, disableShuffle: true }), {
      tokenizer,
      numPrompts: 6,
      seed: 0,
    })
    expect(requests.map((r) => r.expectedOutputLen)).toEqual([12, 24, 16, 20, 32, 8])
  })

  it('shuffles with the seed: the same seed gives the same order, another seed another', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const run = async (seed: number) =>
      (await generateRequests(custom(), { tokenizer, numPrompts: 6, seed })).map((r) => r.prompt)
    expect(await run(7)).toEqual(await run(7))
    const orders = new Set([await run(1), await run(2), await run(3)].map((o) => o.join('|')))
    expect(orders.size).toBeGreaterThan(1)
    expect((await run(1)).slice().sort()).toEqual((await run(2)).slice().sort())
  })

  it('oversamples a short file up to numPrompts unless noOversample', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const more = await generateRequests(custom(), { tokenizer, numPrompts: 15, seed: 0 })
    expect(more).toHaveLength(15)
    const capped = await generateRequests(custom({ noOversample: true }), {
      tokenizer,
      numPrompts: 15,
      seed: 0,
    })
    expect(capped).toHaveLength(6)
  })

  it('names the file, the line and the field of a bad line', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const context = { tokenizer, numPrompts: 2, seed: 0 }
    const noPrompt = await tmpJsonl(['{"prompt": "ok"}', '', '{"text": "no prompt"}'])
    await expect(generateRequests(custom({ path: noPrompt }), context)).rejects.toThrow(
      `custom: ${noPrompt}:3: field "prompt" is missing`,
    )
    const noTokens = await tmpJsonl(['{"prompt": "a", "output_tokens": 10}', '{"prompt": "b"}'])
    await expect(generateRequests(custom({ path: noTokens, outputLen: -1 }), context)).rejects.toThrow(
      `custom: ${noTokens}:2: field "output_tokens" is missing (needed by --custom-output-len -1)`,
    )
    const badTokens = await tmpJsonl(['{"prompt": "a", "output_tokens": "ten"}'])
    await expect(generateRequests(custom({ path: badTokens }), context)).rejects.toThrow(
      `custom: ${badTokens}:1: field "output_tokens" must be an integer of at least 1 (got "ten")`,
    )
    const notJson = await tmpJsonl(['{"prompt": "a"}', '{prompt: b}'])
    await expect(generateRequests(custom({ path: notJson }), context)).rejects.toThrow(
      new RegExp(`^custom: ${notJson.replaceAll('.', '\\.')}:2: not valid JSON`),
    )
    await expect(generateRequests(custom({ path: 'data.json' }), context)).rejects.toThrow(
      'custom: --dataset-path must be a .jsonl file (got data.json)',
    )
    await expect(generateRequests(custom({ path: '/nonexistent/x.jsonl' }), context)).rejects.toThrow(
      'custom: --dataset-path /nonexistent/x.jsonl does not exist',
    )
  })
})
