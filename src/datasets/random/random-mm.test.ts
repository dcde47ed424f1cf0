import { decode as decodeJpeg } from 'jpeg-js'
import { beforeAll, describe, expect, it } from 'vitest'
import { randomConfig, randomText } from '../../../test/random-configs.ts'
import { buildChatBody } from '../../backends/chat.ts'
import type { MediaPart } from '../../config/records.ts'
import { createRng } from '../../rng.ts'
import { loadTokenizer, type Tokenizer } from '../../tokenizer/index.ts'
import { generateRequests } from '../index.ts'
import type { RandomMmDatasetConfig } from './random-mm.ts'
import {
  itemCountBounds,
  limitForBuckets,
  randomImagePart,
  randomVideoPart,
  sampleMmItems,
} from './random-mm.ts'

const SMALL = { height: 32, width: 48, numFrames: 1 }

let tokenizer: Tokenizer
beforeAll(async () => {
  tokenizer = await loadTokenizer({ id: 'cl100k_base' })
})

function mmConfig(overrides: Partial<RandomMmDatasetConfig> = {}): RandomMmDatasetConfig {
  return {
    kind: 'random-mm',
    ...randomText(),
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

const VIDEO = { height: 8, width: 16, numFrames: 2 }

// The frame count and size of a random-mm MP4 data URL, read from its stsz and jpeg sample entry
// (mp4-mjpeg.test.ts walks the boxes in full), and its first frame decoded.
function videoShape(url: string): { frames: number; width: number; height: number } {
  expect(url.startsWith('data:video/mp4;base64,')).toBe(true)
  const mp4 = Buffer.from(url.slice('data:video/mp4;base64,'.length), 'base64')
  expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp')
  const entry = mp4.indexOf('jpeg', 0, 'latin1')
  const stsz = mp4.indexOf('stsz', 0, 'latin1')
  const stco = mp4.indexOf('stco', 0, 'latin1')
  const first = decodeJpeg(
    mp4.subarray(mp4.readUInt32BE(stco + 12), mp4.readUInt32BE(stco + 12) + mp4.readUInt32BE(stsz + 16)),
  )
  const width = mp4.readUInt16BE(entry + 28)
  const height = mp4.readUInt16BE(entry + 30)
  expect([first.width, first.height]).toEqual([width, height])
  return { frames: mp4.readUInt32BE(stsz + 12), width, height }
}

function countKinds(parts: readonly MediaPart[]): { image: number; video: number } {
  return {
    image: parts.filter((p) => p.type === 'image_url').length,
    video: parts.filter((p) => p.type === 'video_url').length,
  }
}

function imageSize(url: string): { width: number; height: number } {
  expect(url.startsWith('data:image/jpeg;base64,')).toBe(true)
  const image = decodeJpeg(Buffer.from(url.slice('data:image/jpeg;base64,'.length), 'base64'))
  return { width: image.width, height: image.height }
}

// Vectors of the Rust port's random-mm tests and behaviour (datasets/random_mm.rs).
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

// Every JPEG costs jpeg-js about 55 ms of CPU, whatever its size (its encoder builds its tables on each
// call), so these tests draw a few requests each: the item counts and buckets are tested on
// sampleMmItems above, without pixels. The timeouts are a margin for a busy machine.
describe('random-mm dataset', { timeout: 15_000 }, () => {
  it('makes numPrompts requests with exact text lengths and images of the bucket sizes', async () => {
    const requests = await generateRequests(mmConfig(), { tokenizer, numPrompts: 4, seed: 4 })
    expect(requests).toHaveLength(4)
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
    const oneImage = mmConfig({ baseItemsPerRequest: 1, numMmItemsRangeRatio: 0 })
    const a = await generateRequests(oneImage, { tokenizer, numPrompts: 2, seed: 9 })
    const b = await generateRequests(oneImage, { tokenizer, numPrompts: 2, seed: 9 })
    const c = await generateRequests(oneImage, { tokenizer, numPrompts: 2, seed: 10 })
    expect(b).toEqual(a)
    expect(c.map((r) => r.prompt)).not.toEqual(a.map((r) => r.prompt))
    expect(c.map((r) => r.multiModalContent)).not.toEqual(a.map((r) => r.multiModalContent))
    const random = await generateRequests(randomConfig(), { tokenizer, numPrompts: 2, seed: 9 })
    expect(a.map((r) => r.prompt)).toEqual(random.map((r) => r.prompt))
  })

  it('sends no images when the base count is 0', async () => {
    const requests = await generateRequests(mmConfig({ baseItemsPerRequest: 0, numMmItemsRangeRatio: 0 }), {
      tokenizer,
      numPrompts: 3,
      seed: 0,
    })
    for (const request of requests) expect(request.multiModalContent).toEqual([])
  })

  it('never draws a zero-weight video bucket', async () => {
    const { buckets, limitMmPerPrompt } = mmConfig()
    const rng = createRng(2)
    let items = 0
    for (let i = 0; i < 100; i++) {
      const drawn = sampleMmItems(rng, 6, buckets, limitForBuckets(limitMmPerPrompt, buckets))
      items += drawn.length
      for (const item of drawn) expect(item.numFrames).toBe(1)
    }
    expect(items).toBe(600)
    const requests = await generateRequests(mmConfig({ baseItemsPerRequest: 3, numMmItemsRangeRatio: 0 }), {
      tokenizer,
      numPrompts: 1,
      seed: 2,
    })
    expect(requests.map((r) => countKinds(r.multiModalContent!))).toEqual([{ image: 3, video: 0 }])
  })
})

describe('random-mm videos', { timeout: 15_000 }, () => {
  const videoBuckets = [
    { ...SMALL, probability: 0.5 },
    { ...VIDEO, probability: 0.5 },
  ]

  it('counts only the limits of modalities with a weighted bucket, as Python does', () => {
    const limit = { image: 255, video: 1 }
    expect(limitForBuckets(limit, mmConfig().buckets)).toEqual({ image: 255, video: 0 })
    expect(limitForBuckets(limit, videoBuckets)).toEqual({ image: 255, video: 1 })
    const videoOnly = [
      { ...VIDEO, probability: 1 },
      { ...SMALL, probability: 0 },
    ]
    expect(limitForBuckets(limit, videoOnly)).toEqual({ image: 0, video: 1 })
    // Three asked of a video-only config under the default limit: one video, the cap.
    expect(itemCountBounds(3, 0, limitForBuckets(limit, videoOnly))).toEqual([1, 1])
    expect(itemCountBounds(300, 0, limitForBuckets(limit, mmConfig().buckets))).toEqual([255, 255])
  })

  it('draws at most one video per request under the default limit, and fills the rest with images', () => {
    const rng = createRng(5)
    let videos = 0
    for (let i = 0; i < 200; i++) {
      const items = sampleMmItems(rng, 4, videoBuckets, { image: 255, video: 1 })
      expect(items).toHaveLength(4)
      const kinds = {
        image: items.filter((x) => x.numFrames === 1).length,
        video: items.filter((x) => x.numFrames > 1).length,
      }
      expect(kinds.video).toBeLessThanOrEqual(1)
      videos += kinds.video
    }
    // P(no video in 4 draws at 1/2) = 1/16: about 188 of 200 requests carry one.
    expect(videos).toBeGreaterThan(150)
    expect(sampleMmItems(createRng(0), 5, videoBuckets, { image: 0, video: 2 })).toEqual([VIDEO, VIDEO])
  })

  it('makes an MP4 video_url part of the bucket size and frame count', () => {
    const part = randomVideoPart(createRng(3), 16, 8, 2)
    const json = JSON.stringify(part)
    expect(json.startsWith('{"type":"video_url","video_url":{"url":"data:video/mp4;base64,')).toBe(true)
    expect(json.endsWith('"}}')).toBe(true)
    expect(videoShape(part.video_url.url)).toEqual({ frames: 2, width: 16, height: 8 })
    expect(randomVideoPart(createRng(3), 16, 8, 2)).toEqual(part)
    expect(randomVideoPart(createRng(4), 16, 8, 2)).not.toEqual(part)
  })

  // The same seed giving the same requests is tested above (images) and on randomVideoPart (videos).
  it('sends images and videos after the text, within the limits', async () => {
    const config = mmConfig({
      baseItemsPerRequest: 2,
      numMmItemsRangeRatio: 0.5,
      limitMmPerPrompt: { image: 2, video: 1 },
      buckets: videoBuckets,
    })
    const a = await generateRequests(config, { tokenizer, numPrompts: 4, seed: 7 })
    let videos = 0
    for (const request of a) {
      const parts = request.multiModalContent!
      const kinds = countKinds(parts)
      expect(kinds.image).toBeLessThanOrEqual(2)
      expect(kinds.video).toBeLessThanOrEqual(1)
      expect(parts.length).toBeGreaterThanOrEqual(1)
      expect(parts.length).toBeLessThanOrEqual(3)
      videos += kinds.video
      for (const part of parts) {
        if (part.type === 'video_url')
          expect(videoShape(part.video_url.url)).toEqual({ frames: 2, width: 16, height: 8 })
        else expect(imageSize(part.image_url.url)).toEqual({ width: 48, height: 32 })
      }
      const body = buildChatBody({
        url: 'http://127.0.0.1:9/v1/chat/completions',
        requestId: '0',
        model: 'm',
        prompt: request.prompt as string,
        multiModalContent: parts,
        promptLen: request.promptLen,
        outputLen: 16,
        ignoreEos: true,
        extraBody: {},
        headers: {},
      })
      // What goes on the wire: the JSON text of the body, parsed back.
      const sent = JSON.parse(JSON.stringify(body)) as {
        messages: Array<{ content: Array<Record<string, unknown>> }>
      }
      const content = sent.messages[0]!.content
      expect(content[0]).toEqual({ type: 'text', text: request.prompt })
      expect(content.slice(1)).toEqual(parts)
      for (const part of content.slice(1)) {
        expect(Object.keys(part)).toEqual(['type', part.type])
        expect(Object.keys(part[part.type as string] as object)).toEqual(['url'])
      }
    }
    expect(videos).toBeGreaterThan(0)
  })
})
