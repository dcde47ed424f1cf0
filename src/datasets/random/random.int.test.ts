import { describe, expect, it } from 'vitest'
import { randomConfig } from '../../../test/random-configs.ts'
import { QWEN3_JSON as QWEN3, sharedTokenizer } from '../../../test/tokenizers.ts'
import type { Tokenizer } from '../../tokenizer/index.ts'
import { generateRequests } from '../index.ts'

async function expectExactLengths(
  tokenizer: Tokenizer,
  prompts: Array<{ prompt: string; promptLen: number }>,
) {
  for (const { prompt, promptLen } of prompts) expect((await tokenizer.encode(prompt)).length).toBe(promptLen)
}

describe.each([
  ['cl100k_base', 'cl100k_base'],
  ['qwen3', QWEN3],
])('random dataset with %s', (_name, id) => {
  it('makes numPrompts requests of exactly the drawn length (range ratio 0)', async () => {
    const tokenizer = await sharedTokenizer(id)
    const requests = await generateRequests(randomConfig({ inputLen: 128 }), {
      tokenizer,
      numPrompts: 20,
      seed: 0,
    })
    expect(requests).toHaveLength(20)
    for (const request of requests) {
      expect(request.promptLen).toBe(128 - tokenizer.numSpecialTokens)
      expect(request.expectedOutputLen).toBe(16)
      expect(request.promptTokenIds).toBeUndefined()
    }
    await expectExactLengths(tokenizer, requests)
  })

  it('draws lengths within the range-ratio bounds', async () => {
    const tokenizer = await sharedTokenizer(id)
    const requests = await generateRequests(
      randomConfig({ inputLen: 100, outputLen: 100, rangeRatio: { input: 0.2, output: 0.5 } }),
      { tokenizer, numPrompts: 40, seed: 3 },
    )
    const inputs = requests.map((r) => r.promptLen)
    const outputs = requests.map((r) => r.expectedOutputLen)
    expect(Math.min(...inputs)).toBeGreaterThanOrEqual(80)
    expect(Math.max(...inputs)).toBeLessThanOrEqual(120)
    expect(Math.min(...outputs)).toBeGreaterThanOrEqual(50)
    expect(Math.max(...outputs)).toBeLessThanOrEqual(150)
    expect(new Set(inputs).size).toBeGreaterThan(5)
    expect(new Set(outputs).size).toBeGreaterThan(5)
    await expectExactLengths(tokenizer, requests)
  })

  it('shares the prefix across prompts', async () => {
    const tokenizer = await sharedTokenizer(id)
    const requests = await generateRequests(randomConfig({ prefixLen: 32, inputLen: 48 }), {
      tokenizer,
      numPrompts: 8,
      seed: 1,
    })
    const prefixText = await tokenizer.decode((await tokenizer.encode(requests[0]!.prompt)).slice(0, 24))
    expect(prefixText.length).toBeGreaterThan(20)
    for (const request of requests) {
      expect(request.prompt.startsWith(prefixText)).toBe(true)
      expect(request.promptLen).toBe(80)
    }
    expect(new Set(requests.map((r) => r.prompt)).size).toBe(8)
    await expectExactLengths(tokenizer, requests)
  })
})

describe('random dataset', () => {
  it('is reproducible for a seed and differs across seeds', async () => {
    const tokenizer = await sharedTokenizer('cl100k_base')
    const config = randomConfig({ rangeRatio: { input: 0.5, output: 0.5 }, prefixLen: 4 })
    const a = await generateRequests(config, { tokenizer, numPrompts: 10, seed: 42 })
    const b = await generateRequests(config, { tokenizer, numPrompts: 10, seed: 42 })
    const c = await generateRequests(config, { tokenizer, numPrompts: 10, seed: 43 })
    expect(b).toEqual(a)
    expect(c.map((r) => r.prompt)).not.toEqual(a.map((r) => r.prompt))
  })

  it('sends token ids as drawn, with their text, when promptTokenIds is set', async () => {
    const tokenizer = await sharedTokenizer('cl100k_base')
    const requests = await generateRequests(randomConfig({ promptTokenIds: true, prefixLen: 8 }), {
      tokenizer,
      numPrompts: 5,
      seed: 0,
    })
    const allowed = new Set(tokenizer.allowedTokenIds())
    for (const request of requests) {
      expect(request.promptTokenIds).toHaveLength(72)
      expect(request.promptLen).toBe(72)
      expect(request.promptTokenIds!.every((id) => allowed.has(id))).toBe(true)
      expect(request.prompt).toBe(await tokenizer.decode(request.promptTokenIds!))
    }
    // Consecutive allowed ids after the prefix (Python: allowed[(offset + i + j) % |allowed|]).
    const ids = requests[0]!.promptTokenIds!.slice(8)
    expect(ids.every((id, j) => j === 0 || id === ids[j - 1]! + 1 || id === 0)).toBe(true)
  })

  it('rejects a range ratio of 1 with the migration hint', async () => {
    const tokenizer = await sharedTokenizer('cl100k_base')
    await expect(
      generateRequests(randomConfig({ rangeRatio: { input: 1, output: 0 } }), {
        tokenizer,
        numPrompts: 1,
        seed: 0,
      }),
    ).rejects.toThrow(
      /--random-range-ratio input ratio must be in \[0, 1\) \(got 1\)\. Note: semantics now match Python/,
    )
  })

  it('rejects an input length that can produce an empty prompt', async () => {
    const tokenizer = await sharedTokenizer('cl100k_base')
    await expect(
      generateRequests(randomConfig({ inputLen: 1, rangeRatio: { input: 0.5, output: 0 } }), {
        tokenizer,
        numPrompts: 1,
        seed: 0,
      }),
    ).rejects.toThrow(/^--random-input-len is too small/)
  })
})
