import {
  DEFAULT_MM_BUCKET_CONFIG,
  DEFAULT_MM_LIMIT,
  parseBucketConfig,
  parseMmLimit,
} from '../datasets/index.ts'
import { bucketProblem } from '../datasets/random-mm-config.ts'
import { ConfigError, type ConfigIssue } from '../errors.ts'
import type { BackendName, RandomMmBucket, RandomMmDatasetConfig } from './bench-config.ts'
import { defaultBenchConfig } from './defaults.ts'

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

/** A tagged `random-mm` dataset, as `datasets.randomMm()` returns it. */
export interface RandomMmDatasetSpec extends RandomMmDatasetOptions {
  readonly kind: 'random-mm'
}

/** Validates a `datasets.randomMm()` spec into its config, pushing every issue with its DSL path. */
export function resolveRandomMmSpec(
  spec: RandomMmDatasetOptions,
  ctx: { issues: ConfigIssue[]; at: (path: string) => string; backend: BackendName },
): RandomMmDatasetConfig {
  const { issues, at } = ctx
  const random = defaultBenchConfig().dataset
  const rr = spec.rangeRatio ?? 0
  const config: RandomMmDatasetConfig = {
    kind: 'random-mm',
    inputLen: spec.inputLen ?? random.inputLen,
    outputLen: spec.outputLen ?? random.outputLen,
    prefixLen: spec.prefixLen ?? random.prefixLen,
    rangeRatio: typeof rr === 'number' ? { input: rr, output: rr } : rr,
    baseItemsPerRequest: spec.baseItemsPerRequest ?? 1,
    numMmItemsRangeRatio: spec.numMmItemsRangeRatio ?? 0,
    limitMmPerPrompt: { ...DEFAULT_MM_LIMIT },
    buckets: [],
    enableMultimodalChat: spec.enableMultimodalChat ?? false,
  }
  if (ctx.backend !== 'openai-chat') {
    issues.push({
      path: at('endpoint.backend'),
      message: `datasets.randomMm() needs backend 'openai-chat' (it sends images and videos in chat messages); got '${ctx.backend}'`,
    })
  }
  for (const [key, value, min] of [
    ['inputLen', config.inputLen, 1],
    ['outputLen', config.outputLen, 1],
    ['prefixLen', config.prefixLen, 0],
    ['baseItemsPerRequest', config.baseItemsPerRequest, 0],
  ] as const) {
    if (!(Number.isInteger(value) && value >= min))
      issues.push({ path: at(`dataset.${key}`), message: `must be an integer ≥ ${min} (got ${value})` })
  }
  for (const side of ['input', 'output'] as const) {
    const v = config.rangeRatio[side]
    if (!(v >= 0 && v < 1)) {
      issues.push({ path: at(`dataset.rangeRatio`), message: `${side} ratio must be in [0, 1) (got ${v})` })
    }
  }
  const r = config.numMmItemsRangeRatio
  if (!(r >= 0 && r <= 1))
    issues.push({ path: at('dataset.numMmItemsRangeRatio'), message: `must be in [0, 1] (got ${r})` })
  config.limitMmPerPrompt = fromFlagParser(
    issues,
    at('dataset.limitMmPerPrompt'),
    config.limitMmPerPrompt,
    () => parseMmLimit(JSON.stringify(spec.limitMmPerPrompt ?? {})),
  )
  const buckets = spec.buckets ?? DEFAULT_MM_BUCKET_CONFIG
  config.buckets =
    typeof buckets === 'string'
      ? fromFlagParser(issues, at('dataset.buckets'), [], () => parseBucketConfig(buckets))
      : buckets.map((b, i) => {
          const problem = bucketProblem(b)
          if (problem !== undefined) issues.push({ path: at(`dataset.buckets[${i}]`), message: problem })
          return { ...b }
        })
  return config
}

// The flag parsers name their flag; in a suite the path is the DSL field instead.
function fromFlagParser<T>(issues: ConfigIssue[], path: string, fallback: T, parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    for (const issue of error.issues) issues.push({ path, message: issue.message })
    return fallback
  }
}
