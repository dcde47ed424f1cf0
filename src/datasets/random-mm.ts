import { encode as encodeJpeg } from 'jpeg-js'
import type { RandomMmBucket, RandomMmDatasetConfig } from '../config/bench-config.ts'
import type { MultiModalPart, SampleRequest } from '../config/records.ts'
import { ConfigError } from '../errors.ts'
import { createRng, type Rng } from '../rng.ts'
import type { BuildPromptsOptions } from './generate-pool.ts'
import type { DatasetContext } from './index.ts'
import { buildRandomRequests, planRandomPrompts } from './random.ts'

/** Rust seeds each request's pixels apart from the shared draws: `seed + i + 0xBEEF`. */
const IMAGE_SEED_OFFSET = 0xbeef

/** One drawn multimodal item: the bucket it came from. */
export type MmItem = Pick<RandomMmBucket, 'height' | 'width' | 'numFrames'>

/**
 * The `random-mm` dataset (Python `RandomMultiModalDataset`; Rust §4.2): the text of `random`
 * (same draws, same prompts for the same seed), then, from the same generator, each request's
 * item list; each item is a JPEG of random pixels at its bucket's size, sent as a base64 data URL
 * after the text part of the chat message. Video buckets with a weight are rejected, as in Rust.
 */
export async function generateRandomMm(
  config: RandomMmDatasetConfig,
  context: DatasetContext,
  options: BuildPromptsOptions = {},
): Promise<SampleRequest[]> {
  const buckets = checkBuckets(config.buckets)
  const [minItems, maxItems] = itemCountBounds(
    config.baseItemsPerRequest,
    config.numMmItemsRangeRatio,
    config.limitMmPerPrompt,
  )
  const { plan, outputLens, rng } = await planRandomPrompts({ ...config, promptTokenIds: false }, context)
  const items: MmItem[][] = []
  for (let i = 0; i < context.numPrompts; i++) {
    const count = minItems === maxItems ? minItems : rng.int(minItems, maxItems)
    items.push(sampleMmItems(rng, count, buckets, config.limitMmPerPrompt))
  }
  const requests = await buildRandomRequests(context.tokenizer, plan, outputLens, options)
  for (let i = 0; i < requests.length; i++) {
    const pixels = createRng(context.seed + i + IMAGE_SEED_OFFSET)
    requests[i]!.multiModalContent = items[i]!.map((item) => randomImagePart(pixels, item.width, item.height))
  }
  return requests
}

/**
 * Item-count bounds (Rust): `[max(0, floor(n(1−r))), ceil(n(1+r))]`, the upper bound capped at
 * the image + video limits and the lower one at the upper. Throws for r outside [0, 1].
 */
export function itemCountBounds(
  base: number,
  ratio: number,
  limit: { image: number; video: number },
): [min: number, max: number] {
  if (!(ratio >= 0 && ratio <= 1)) {
    throw new ConfigError([
      { path: '--random-mm-num-mm-items-range-ratio', message: `must be in [0, 1] (got ${ratio})` },
    ])
  }
  const max = Math.min(Math.ceil(base * (1 + ratio)), limit.image + limit.video)
  return [Math.min(Math.max(0, Math.floor(base * (1 - ratio))), max), max]
}

/**
 * Draws up to `count` items (Rust `sample_mm_items`): for each, buckets whose modality has
 * reached its limit get weight 0; when no weight is left the list ends early; otherwise
 * `u = uniform × total` picks the first bucket whose cumulative weight exceeds `u`.
 */
export function sampleMmItems(
  rng: Rng,
  count: number,
  buckets: readonly RandomMmBucket[],
  limit: { image: number; video: number },
): MmItem[] {
  const items: MmItem[] = []
  const used = { image: 0, video: 0 }
  for (let k = 0; k < count; k++) {
    const weights = buckets.map((b) => (used[modalityOf(b)] >= limit[modalityOf(b)] ? 0 : b.probability))
    const total = weights.reduce((sum, w) => sum + w, 0)
    if (total <= 0) break
    const u = rng.next() * total
    let picked = weights.findLastIndex((w) => w > 0)
    let cumulative = 0
    for (let b = 0; b < weights.length; b++) {
      cumulative += weights[b]!
      if (weights[b]! > 0 && u < cumulative) {
        picked = b
        break
      }
    }
    const bucket = buckets[picked]!
    used[modalityOf(bucket)]++
    items.push({ height: bucket.height, width: bucket.width, numFrames: bucket.numFrames })
  }
  return items
}

/** A JPEG of random RGB pixels (jpeg-js at its default quality), as a chat `image_url` part. */
export function randomImagePart(rng: Rng, width: number, height: number): MultiModalPart {
  const data = Buffer.allocUnsafe(width * height * 4)
  for (let p = 0; p < data.length; p += 4) {
    const rgb = rng.int(0, 0xff_ff_ff)
    data[p] = rgb & 0xff
    data[p + 1] = (rgb >>> 8) & 0xff
    data[p + 2] = rgb >>> 16
    data[p + 3] = 0xff
  }
  const jpeg = encodeJpeg({ data, width, height })
  return { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg.data.toString('base64')}` } }
}

// Zero weights are dropped (Python and Rust); a weighted video bucket is refused up front.
function checkBuckets(buckets: readonly RandomMmBucket[]): RandomMmBucket[] {
  const kept = buckets.filter((b) => b.probability > 0)
  const video = kept.find((b) => b.numFrames > 1)
  if (video !== undefined) {
    throw new ConfigError([
      {
        path: '--random-mm-bucket-config',
        message:
          `has a video bucket (${video.height}, ${video.width}, ${video.numFrames}) with weight ${video.probability}: ` +
          'video is not supported yet; give it weight 0 or use frames 1',
      },
    ])
  }
  return kept
}

function modalityOf(bucket: RandomMmBucket): 'image' | 'video' {
  return bucket.numFrames > 1 ? 'video' : 'image'
}
