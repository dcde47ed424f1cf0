import { decode as decodeJpeg } from 'jpeg-js'
import { describe, expect, it } from 'vitest'
import type { RandomMmDatasetConfig } from '../config/bench-config.ts'
import { createRng } from '../rng.ts'
import { loadTokenizer } from '../tokenizer/index.ts'
import { generateRequests } from './index.ts'
import { itemCountBounds, randomImagePart, sampleMmItems } from './random-mm.ts'

const SMALL = { height: 32, width: 48, numFrames: 1 }

function mmConfig(overrides: Partial<RandomMmDatasetConfig> = {}): RandomMmDatasetConfig {
  return {
    kind: 'random-mm',
    inputLen: 64,
    outputLen: 16,
    prefixLen: 0,
    rangeRatio: { input: 0, output: 0 },
    baseItemsPerRequest: 2,
    numMmItemsRangeRatio: 0.5,
    limitMmPerPrompt: { image: 255, video: 1 },
    buckets: [
      { ...SMALL, probability: 0.5 },
      { height: 16, width: 16, numFrames: 1, probability: 0.5 },
      { height: 720, width: 1280, numFrames: 16, probability: 0 },
    ],
    enableMultimodalChat: false,
    ...overrides,
  }
}

function imageSize(url: string): { width: number; height: number } {
  expect(url.startsWith('data:image/jpeg;base64,')).toBe(true)
  const image = decodeJpeg(Buffer.from(url.slice('data:image/jpeg;base64,'.length), 'base64'))
  return { width: image.width, height: image.height }
}

// Vectors: rust-vllm-bench.md §11.8 and §4.2.
describe('random-mm items', () => {
  it('draws 2 to 3 images from two image buckets under an image limit of 5', () => {
    const buckets = mmConfig().buckets.slice(0, 2)
    const [min, max] = itemCountBounds(2, 0.5, { image: 5, video: 0 })
    expect([min, max]).toEqual([1, 3])
    const rng = createRng(1)
    for (let i = 0; i < 50; i++) {
      const items = sampleMmItems(rng, rng.int(2, 3), buckets, { image: 5, video: 0 })
      expect(items.length).toBeGreaterThanOrEqual(2)
      expect(items.length).toBeLessThanOrEqual(3)
      for (const item of items) expect(item.numFrames).toBe(1)
    }
  })

  it('stops at the image limit: 5 asked, limit 2, gives exactly 2', () => {
    const items = sampleMmItems(createRng(0), 5, [{ ...SMALL, probability: 1 }], { image: 2, video: 1 })
    expect(items).toEqual([SMALL, SMALL])
  })

  it('caps the item count at the image + video limits and rejects a ratio above 1', () => {
    expect(itemCountBounds(10, 0, { image: 3, video: 1 })).toEqual([4, 4])
    expect(itemCountBounds(0, 0, { image: 3, video: 1 })).toEqual([0, 0])
    expect(() => itemCountBounds(1, 1.5, { image: 3, video: 1 })).toThrow(
      '--random-mm-num-mm-items-range-ratio must be in [0, 1] (got 1.5)',
    )
  })

  it('makes a 64×64 JPEG image_url part whose JSON has the Rust fragment shape', () => {
    const part = randomImagePart(createRng(3), 64, 64)
    const json = JSON.stringify(part)
    expect(json.startsWith('{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,')).toBe(true)
    expect(json.endsWith('"}}')).toBe(true)
    expect(imageSize(part.image_url.url)).toEqual({ width: 64, height: 64 })
  })
})

describe('random-mm dataset', () => {
  it('makes numPrompts requests with exact text lengths and images of the bucket sizes', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const requests = await generateRequests(mmConfig(), { tokenizer, numPrompts: 12, seed: 4 })
    expect(requests).toHaveLength(12)
    const counts = new Set<number>()
    for (const request of requests) {
      expect(request.promptLen).toBe(64)
      expect((await tokenizer.encode(request.prompt)).length).toBe(64)
      expect(request.expectedOutputLen).toBe(16)
      const parts = request.multiModalContent!
      counts.add(parts.length)
      expect(parts.length).toBeGreaterThanOrEqual(1)
      expect(parts.length).toBeLessThanOrEqual(3)
      for (const part of parts) {
        expect(part.type).toBe('image_url')
        expect([
          JSON.stringify({ width: 48, height: 32 }),
          JSON.stringify({ width: 16, height: 16 }),
        ]).toContain(JSON.stringify(imageSize(part.type === 'image_url' ? part.image_url.url : '')))
      }
    }
    expect(counts.size).toBeGreaterThan(1)
  })

  it('gives the same requests for the same seed, the random text of that seed, and others for another seed', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const a = await generateRequests(mmConfig(), { tokenizer, numPrompts: 6, seed: 9 })
    const b = await generateRequests(mmConfig(), { tokenizer, numPrompts: 6, seed: 9 })
    const c = await generateRequests(mmConfig(), { tokenizer, numPrompts: 6, seed: 10 })
    expect(b).toEqual(a)
    expect(c.map((r) => r.prompt)).not.toEqual(a.map((r) => r.prompt))
    const random = await generateRequests(
      {
        kind: 'random',
        inputLen: 64,
        outputLen: 16,
        prefixLen: 0,
        rangeRatio: { input: 0, output: 0 },
        batchSize: 1,
        promptTokenIds: false,
      },
      { tokenizer, numPrompts: 6, seed: 9 },
    )
    expect(a.map((r) => r.prompt)).toEqual(random.map((r) => r.prompt))
  })

  it('sends no images when the base count is 0', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const requests = await generateRequests(mmConfig({ baseItemsPerRequest: 0, numMmItemsRangeRatio: 0 }), {
      tokenizer,
      numPrompts: 3,
      seed: 0,
    })
    for (const request of requests) expect(request.multiModalContent).toEqual([])
  })

  it('rejects a video bucket with a weight, naming the flag', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const config = mmConfig({ buckets: [{ height: 720, width: 1280, numFrames: 16, probability: 0.2 }] })
    await expect(generateRequests(config, { tokenizer, numPrompts: 1, seed: 0 })).rejects.toThrow(
      '--random-mm-bucket-config has a video bucket (720, 1280, 16) with weight 0.2: video is not supported yet; give it weight 0 or use frames 1',
    )
  })
})
