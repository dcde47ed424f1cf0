import { describe, expect, it } from 'vitest'
import { loadTokenizer } from '../../tokenizer/index.ts'
import { batchRequests } from './batch.ts'
import type { RandomRerankDatasetConfig } from './random-rerank.ts'
import { generateRandomRerank } from './random-rerank.ts'

const tokenizer = await loadTokenizer({ id: 'gpt2' })

function config(overrides: Partial<RandomRerankDatasetConfig>): RandomRerankDatasetConfig {
  return {
    kind: 'random-rerank',
    inputLen: 128,
    rangeRatio: { input: 0, output: 0 },
    batchSize: 3,
    noReranker: false,
    ...overrides,
  }
}

// Vectors of the Rust port's random-rerank and batch_requests tests (datasets/random_rerank.rs).
describe('random-rerank', () => {
  it('reranker: 6 documents in batches of 3 give 2 requests of query + 3 documents', async () => {
    const requests = await generateRandomRerank(config({}), { tokenizer, numPrompts: 6, seed: 0 })
    expect(requests).toHaveLength(2)
    for (const r of requests) {
      expect(r.promptList).toHaveLength(4)
      expect(r.expectedOutputLen).toBe(0)
      expect(r.promptList![0]).toBe(requests[0]!.promptList![0])
    }
    const query = requests[0]!.promptList![0]!
    expect((await tokenizer.encode(query)).length).toBeLessThanOrEqual(64)
  })

  it('reranker prompt length counts the query and a separator once per document', async () => {
    const [request] = await generateRandomRerank(config({}), { tokenizer, numPrompts: 3, seed: 0 })
    // No range ratio: query 63 tokens, each document 128 − 63 − 1 = 64.
    expect(request!.promptLen).toBe((63 + 1) * 3 + 3 * 64)
  })

  it('no-reranker: 6 prompts give 5 documents in batches of 2, the query first in each', async () => {
    const requests = await generateRandomRerank(config({ inputLen: 64, noReranker: true }), {
      tokenizer,
      numPrompts: 6,
      seed: 0,
    })
    expect(requests).toHaveLength(3)
    expect(requests[0]!.promptList).toHaveLength(3)
    expect(requests[2]!.promptList).toHaveLength(2)
  })

  it('is reproducible for a seed', async () => {
    const a = await generateRandomRerank(config({}), { tokenizer, numPrompts: 4, seed: 7 })
    const b = await generateRandomRerank(config({}), { tokenizer, numPrompts: 4, seed: 7 })
    expect(a).toEqual(b)
  })

  it('no-reranker needs more than one prompt and a batch above 1', async () => {
    await expect(
      generateRandomRerank(config({ noReranker: true, batchSize: 1 }), { tokenizer, numPrompts: 6, seed: 0 }),
    ).rejects.toThrow(
      '--no-reranker needs --num-prompts > 1 and --random-batch-size > 1 (got 6 and 1): the query takes one input of each request',
    )
  })
})

describe('batchRequests', () => {
  const requests = [10, 20, 30, 40, 50].map((len, i) => ({
    prompt: `p${i}`,
    promptLen: len,
    expectedOutputLen: 7,
  }))

  it('groups consecutive requests: lists, summed lengths, no output', () => {
    const batches = batchRequests(requests, 2)
    expect(batches).toHaveLength(3)
    expect(batches[0]).toEqual({
      prompt: 'p0',
      promptList: ['p0', 'p1'],
      promptLen: 30,
      expectedOutputLen: 0,
    })
    expect(batches[2]!.promptList).toEqual(['p4'])
    expect(batches[2]!.promptLen).toBe(50)
  })

  it('leaves the list unchanged for batch size 1', () => {
    expect(batchRequests(requests, 1)).toEqual(requests)
  })
})
