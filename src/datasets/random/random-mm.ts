import { encode as encodeJpeg } from 'jpeg-js'
import type { BackendName } from '../../config/bench-config.ts'
import { type DatasetFlagContext, needsTokenizer, rejectPath } from '../../config/dataset-flag-checks.ts'
import { f } from '../../config/dsl-fields.ts'
import type { MediaPart, MultiModalPart, SampleRequest, VideoPart } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { ConfigError, type ConfigIssue } from '../../errors.ts'
import { createRng, type Rng } from '../../rng.ts'
import { type DatasetContext, type DslFieldTable, defineDataset, flagRow } from '../dataset-module.ts'
import { dataUrl } from '../image-bytes.ts'
import { ENABLE_MULTIMODAL_CHAT } from '../shared-flags.ts'
import type { BuildPromptsOptions } from './generate-pool.ts'
import {
  RANDOM_TEXT_FIELDS,
  RANDOM_TEXT_FLAGS,
  type RandomTextLengths,
  readRandomLengths,
} from './lengths.ts'
import { muxMjpegMp4 } from './mp4-mjpeg.ts'
import { buildRandomRequests, planRandomPrompts } from './random.ts'
import {
  bucketConfigText,
  DEFAULT_MM_BUCKET_CONFIG,
  DEFAULT_MM_LIMIT,
  parseBucketConfig,
  parseMmLimit,
  type RandomMmBucket,
} from './random-mm-config.ts'

/** `--dataset-name random-mm`: random text (as `random`) plus synthetic JPEG images. Rust: datasets/random_mm.rs. */
export interface RandomMmDatasetConfig extends RandomTextLengths {
  kind: 'random-mm'
  /** `--random-mm-base-items-per-request`. */
  baseItemsPerRequest: number
  /** `--random-mm-num-mm-items-range-ratio`, in [0, 1]. */
  numMmItemsRangeRatio: number
  /** `--random-mm-limit-mm-per-prompt`. */
  limitMmPerPrompt: { image: number; video: number }
  /** `--random-mm-bucket-config`, in the order given. */
  buckets: RandomMmBucket[]
  /** `--enable-multimodal-chat`: accepted; the request body is the same either way. */
  enableMultimodalChat: boolean
}

/** Options of `datasets.randomMm` (`--dataset-name random-mm`). */
export interface RandomMmDatasetOptions {
  /** Prompt tokens per request. @default 1024 */
  inputLen?: number
  /** Output tokens asked per request. @default 128 */
  outputLen?: number
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Shared prefix tokens. @default 0 */
  prefixLen?: number
  /** Length spread: one number for both, or per side. @default 0 */
  rangeRatio?: number | { input: number; output: number }
  /** Items (images and videos) per request (`--random-mm-base-items-per-request`). @default 1 */
  baseItemsPerRequest?: number
  /** Item-count spread r in [0, 1] (`--random-mm-num-mm-items-range-ratio`). @default 0 */
  numMmItemsRangeRatio?: number
  /** Per-modality caps (`--random-mm-limit-mm-per-prompt`). @default { image: 255, video: 1 } */
  limitMmPerPrompt?: { image?: number; video?: number }
  /**
   * Item sizes and weights: the `--random-mm-bucket-config` string, or a list. A bucket of 1
   * frame is a JPEG image; more frames make an MP4 video of that many frames at 30 fps.
   * @default '{(256, 256, 1): 0.5, (720, 1280, 1): 0.5, (720, 1280, 16): 0.0}'
   */
  buckets?: string | RandomMmBucket[]
  /** `--enable-multimodal-chat`: accepted; the body is the same. @default false */
  enableMultimodalChat?: boolean
}

const BASE_ITEMS = flagRow('--random-mm-base-items-per-request', 'int', 'random-mm: items per request.', {
  default: '1',
})
const ITEMS_RANGE_RATIO = flagRow(
  '--random-mm-num-mm-items-range-ratio',
  'number',
  'random-mm: r in [0,1]; the item count is drawn from [n(1-r), n(1+r)].',
  { default: '0.0' },
)
const LIMIT_MM = flagRow(
  '--random-mm-limit-mm-per-prompt',
  'string',
  'random-mm: per-modality caps as JSON; missing keys are 255 images, 1 video.',
  { default: '{"image": 255, "video": 1}' },
)
const BUCKET_CONFIG = flagRow(
  '--random-mm-bucket-config',
  'string',
  'random-mm: {(height, width, frames): weight, ...}; weights are normalised; frames > 1 is an MP4 video.',
  { default: DEFAULT_MM_BUCKET_CONFIG },
)

/** `--dataset-name random-mm`: random text plus random-pixel images and videos, for `openai-chat`. */
export const randomMmDataset = defineDataset<RandomMmDatasetConfig, RandomMmDatasetOptions>({
  kind: 'random-mm',
  summary: 'random text plus random-pixel JPEG images and MP4 videos (`openai-chat`)',
  datasetName: 'random-mm',
  builder: 'randomMm',
  fields: {
    ...RANDOM_TEXT_FIELDS,
    numPrompts: f('--num-prompts'),
    baseItemsPerRequest: f(BASE_ITEMS.name),
    numMmItemsRangeRatio: f(ITEMS_RANGE_RATIO.name),
    limitMmPerPrompt: f(LIMIT_MM.name, 'json'),
    buckets: f(BUCKET_CONFIG.name, 'scalar', (value) =>
      Array.isArray(value) ? bucketConfigText(value as RandomMmBucket[]) : undefined,
    ),
    enableMultimodalChat: f(ENABLE_MULTIMODAL_CHAT.name, 'switch'),
  } satisfies DslFieldTable<RandomMmDatasetOptions>,
  flags: [
    ...RANDOM_TEXT_FLAGS,
    BASE_ITEMS,
    ITEMS_RANGE_RATIO,
    LIMIT_MM,
    BUCKET_CONFIG,
    ENABLE_MULTIMODAL_CHAT,
  ],
  resolve: resolveRandomMm,
  generate: (config, context) => generateRandomMm(config, context),
})

/** Embedding backends that send random-mm's images (Python's clip and vlm2vec request functions). */
const IMAGE_EMBEDDING_BACKENDS: readonly BackendName[] = [
  'openai-embeddings-clip',
  'openai-embeddings-vlm2vec',
  'infinity-embeddings-clip',
]

function resolveRandomMm(read: Reader, context: DatasetFlagContext): RandomMmDatasetConfig {
  const { backend, issues } = context
  if (backend !== 'openai-chat' && !IMAGE_EMBEDDING_BACKENDS.includes(backend)) {
    issues.push({
      path: '--dataset-name',
      message: `random-mm needs --backend openai-chat (it sends images and videos in chat messages); got --backend ${backend}`,
    })
  }
  rejectPath(read, 'random-mm', issues)
  needsTokenizer('random-mm', context)
  return {
    kind: 'random-mm',
    ...readRandomLengths(read),
    baseItemsPerRequest: read.int(BASE_ITEMS.name, 0) ?? 1,
    numMmItemsRangeRatio: unitInterval(read, ITEMS_RANGE_RATIO.name, issues) ?? 0,
    limitMmPerPrompt: read.parsed(LIMIT_MM.name, parseMmLimit) ?? { ...DEFAULT_MM_LIMIT },
    buckets:
      read.parsed(BUCKET_CONFIG.name, parseBucketConfig) ?? parseBucketConfig(DEFAULT_MM_BUCKET_CONFIG),
    enableMultimodalChat: read.bool(ENABLE_MULTIMODAL_CHAT.name),
  }
}

/** Python's item-count spread r of random-mm is in [0, 1]. */
function unitInterval(read: Reader, name: string, issues: ConfigIssue[]): number | undefined {
  const value = read.number(name)
  if (value !== undefined && !(value >= 0 && value <= 1)) {
    issues.push({ path: name, message: `must be in [0, 1] (got ${value})` })
    return undefined
  }
  return value
}

/** Rust seeds each request's pixels apart from the shared draws: `seed + i + 0xBEEF`. */
const IMAGE_SEED_OFFSET = 0xbeef

/** Python writes its synthetic videos at 30 frames per second. */
const VIDEO_FPS = 30

/** One drawn multimodal item: the bucket it came from. */
export type MmItem = Pick<RandomMmBucket, 'height' | 'width' | 'numFrames'>

/**
 * The `random-mm` dataset (Python `RandomMultiModalDataset`; Rust: datasets/random_mm.rs): the text of `random`
 * (same draws, same prompts for the same seed), then, from the same generator, each request's
 * item list, sent as base64 data URLs after the text part of the chat message: an image bucket
 * (1 frame) gives a JPEG of random pixels at its size, a video bucket (frames > 1) an MP4 of that
 * many random-pixel frames at 30 fps (Python's `generate_synthetic_video`).
 */
export async function generateRandomMm(
  config: RandomMmDatasetConfig,
  context: DatasetContext,
  options: BuildPromptsOptions = {},
): Promise<SampleRequest[]> {
  // Zero weights are dropped (Python and Rust).
  const buckets = config.buckets.filter((b) => b.probability > 0)
  const limit = limitForBuckets(config.limitMmPerPrompt, buckets)
  const [minItems, maxItems] = itemCountBounds(config.baseItemsPerRequest, config.numMmItemsRangeRatio, limit)
  const { plan, outputLens, rng } = await planRandomPrompts({ ...config, promptTokenIds: false }, context)
  const items: MmItem[][] = []
  for (let i = 0; i < context.numPrompts; i++) {
    const count = minItems === maxItems ? minItems : rng.int(minItems, maxItems)
    items.push(sampleMmItems(rng, count, buckets, limit))
  }
  const requests = await buildRandomRequests(context.tokenizer, plan, outputLens, options)
  for (let i = 0; i < requests.length; i++) {
    const pixels = createRng(context.seed + i + IMAGE_SEED_OFFSET)
    requests[i]!.multiModalContent = items[i]!.map((item) => randomMediaPart(pixels, item))
  }
  return requests
}

/**
 * The per-modality limits that count (Python): only modalities with a weighted bucket keep their
 * limit, so the default zero-weight video bucket does not raise the item cap by its 1 video.
 */
export function limitForBuckets(
  limit: { image: number; video: number },
  buckets: readonly RandomMmBucket[],
): { image: number; video: number } {
  const present = new Set(buckets.filter((b) => b.probability > 0).map(modalityOf))
  return { image: present.has('image') ? limit.image : 0, video: present.has('video') ? limit.video : 0 }
}

/**
 * Item-count bounds: `[max(0, floor(n(1−r))), ceil(n(1+r))]`, the upper bound capped at the
 * image + video limits (pass {@link limitForBuckets}'s) and the lower one at the upper (Rust; Python
 * fails there). Throws for r outside [0, 1].
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
 * Draws up to `count` items: for each, buckets whose modality has reached its limit get weight 0
 * (Python renormalises the rest once a draw hits a full modality; the odds are the same); when no
 * weight is left the list ends early; otherwise `u = uniform × total` picks the first bucket
 * whose cumulative weight exceeds `u`.
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

/** A random-pixel image or video part for a drawn item: a video when it has more than one frame. */
function randomMediaPart(rng: Rng, item: MmItem): MediaPart {
  return item.numFrames > 1
    ? randomVideoPart(rng, item.width, item.height, item.numFrames)
    : randomImagePart(rng, item.width, item.height)
}

/** A JPEG of random RGB pixels (jpeg-js at its default quality), as a chat `image_url` part. */
export function randomImagePart(rng: Rng, width: number, height: number): MultiModalPart {
  return { type: 'image_url', image_url: { url: dataUrl('image/jpeg', randomJpeg(rng, width, height)) } }
}

/**
 * An MP4 of `numFrames` random-pixel frames at {@link VIDEO_FPS}, each a JPEG as
 * {@link randomImagePart} makes them (Motion-JPEG: see `mp4-mjpeg.ts`), as a chat `video_url` part.
 */
export function randomVideoPart(rng: Rng, width: number, height: number, numFrames: number): VideoPart {
  const frames: Uint8Array[] = []
  for (let f = 0; f < numFrames; f++) frames.push(randomJpeg(rng, width, height))
  const mp4 = muxMjpegMp4(frames, { width, height, fps: VIDEO_FPS })
  return { type: 'video_url', video_url: { url: dataUrl('video/mp4', mp4) } }
}

function randomJpeg(rng: Rng, width: number, height: number): Buffer {
  const data = Buffer.allocUnsafe(width * height * 4)
  for (let p = 0; p < data.length; p += 4) {
    const rgb = rng.int(0, 0xff_ff_ff)
    data[p] = rgb & 0xff
    data[p + 1] = (rgb >>> 8) & 0xff
    data[p + 2] = rgb >>> 16
    data[p + 3] = 0xff
  }
  return encodeJpeg({ data, width, height }).data
}

function modalityOf(bucket: RandomMmBucket): 'image' | 'video' {
  return bucket.numFrames > 1 ? 'video' : 'image'
}
