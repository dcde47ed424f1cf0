import { ConfigError } from '../../errors.ts'

/** One `--random-mm-bucket-config` entry: an image (frames 1) or video size and its weight. */
export interface RandomMmBucket {
  height: number
  width: number
  numFrames: number
  probability: number
}

/** Python's defaults for `--random-mm-limit-mm-per-prompt` keys that are not given. */
export const DEFAULT_MM_LIMIT = { image: 255, video: 1 } as const

/** Python's `--random-mm-bucket-config` default: two image sizes, and a video bucket at weight 0. */
export const DEFAULT_MM_BUCKET_CONFIG = '{(256, 256, 1): 0.5, (720, 1280, 1): 0.5, (720, 1280, 16): 0.0}'

const BUCKET_FLAG = '--random-mm-bucket-config'
const LIMIT_FLAG = '--random-mm-limit-mm-per-prompt'
const ENTRY = /^\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)\s*:\s*([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)$/

/**
 * Parses `--random-mm-bucket-config`, a Python dict literal of `(height, width, frames): weight`
 * entries: `{(256, 256, 1): 0.5, (720, 1280, 1): 0.5}`. Integers for the sizes, a number ≥ 0 for
 * the weight, at least one entry (Rust: datasets/random_mm.rs). Weights are kept as given; generation drops zero
 * weights and normalises the rest. Throws a `ConfigError` naming the flag and the bad entry.
 */
export function parseBucketConfig(value: string): RandomMmBucket[] {
  const text = value.trim()
  if (!text.startsWith('{') || !text.endsWith('}')) {
    throw bucketError(
      `must be a dict such as {(256, 256, 1): 0.5, (720, 1280, 1): 0.5} (got ${JSON.stringify(value)})`,
    )
  }
  const body = text.slice(1, -1).trim()
  // Split on the commas between entries, not those inside a tuple.
  const entries = body === '' ? [] : body.split(/(?<=[0-9.])\s*,\s*(?=\()/)
  if (entries.length === 0) throw bucketError('needs at least one (height, width, frames): weight entry')
  return entries.map((entry) => {
    const match = ENTRY.exec(entry.trim())
    if (match === null) {
      throw bucketError(
        `has a bad entry ${JSON.stringify(entry.trim())}: each is (height, width, frames): weight, with integers and a weight ≥ 0`,
      )
    }
    const bucket = {
      height: Number(match[1]),
      width: Number(match[2]),
      numFrames: Number(match[3]),
      probability: Number(match[4]),
    }
    const problem = bucketProblem(bucket)
    if (problem !== undefined)
      throw bucketError(`has a bad entry ${JSON.stringify(entry.trim())}: ${problem}`)
    return bucket
  })
}

/**
 * What is wrong with one bucket, or undefined: height, width and frames are integers ≥ 1 (1 frame
 * is an image, more a video; Python refuses 0 frames), the weight a finite number ≥ 0.
 */
export function bucketProblem(bucket: RandomMmBucket): string | undefined {
  for (const key of ['height', 'width', 'numFrames'] as const) {
    const value = bucket[key]
    if (!(Number.isInteger(value) && value >= 1 && value <= 0xffff)) {
      return `${key === 'numFrames' ? 'frames' : key} must be an integer from 1 to 65535 (got ${value})`
    }
  }
  if (!(Number.isFinite(bucket.probability) && bucket.probability >= 0)) {
    return `the weight must be a number ≥ 0 (got ${bucket.probability})`
  }
  return undefined
}

/** Buckets as `--random-mm-bucket-config` text, Python's `{(h, w, frames): p}` (a DSL list of buckets). */
export function bucketConfigText(buckets: readonly RandomMmBucket[]): string {
  // As the DSL door writes any value: a number as the CLI reads it, anything else as JSON.
  const text = (v: unknown): string =>
    typeof v === 'number'
      ? v === Number.POSITIVE_INFINITY
        ? 'inf'
        : v === Number.NEGATIVE_INFINITY
          ? '-inf'
          : String(v)
      : typeof v === 'string'
        ? v
        : (JSON.stringify(v) ?? String(v))
  const entry = (b: RandomMmBucket): string =>
    `(${text(b?.height)}, ${text(b?.width)}, ${text(b?.numFrames)}): ${text(b?.probability)}`
  return `{${buckets.map(entry).join(', ')}}`
}

/**
 * Parses `--random-mm-limit-mm-per-prompt`: a JSON object of per-modality caps,
 * `{"image": 3, "video": 0}`; missing keys default to 255 images and 1 video.
 */
export function parseMmLimit(value: string): { image: number; video: number } {
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    parsed = undefined
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw limitError(`must be a JSON object such as {"image": 3, "video": 0} (got ${JSON.stringify(value)})`)
  }
  const record = parsed as Record<string, unknown>
  const unknown = Object.keys(record).filter((key) => key !== 'image' && key !== 'video')
  if (unknown.length > 0) {
    throw limitError(
      `knows the keys "image" and "video" (got ${unknown.map((k) => JSON.stringify(k)).join(', ')})`,
    )
  }
  const limit = { image: DEFAULT_MM_LIMIT.image as number, video: DEFAULT_MM_LIMIT.video as number }
  for (const key of ['image', 'video'] as const) {
    const cap = record[key]
    if (cap === undefined) continue
    if (typeof cap !== 'number' || !Number.isInteger(cap) || cap < 0) {
      throw limitError(`"${key}" must be an integer ≥ 0 (got ${JSON.stringify(cap)})`)
    }
    limit[key] = cap
  }
  return limit
}

function bucketError(message: string): ConfigError {
  return new ConfigError([{ path: BUCKET_FLAG, message }])
}

function limitError(message: string): ConfigError {
  return new ConfigError([{ path: LIMIT_FLAG, message }])
}
