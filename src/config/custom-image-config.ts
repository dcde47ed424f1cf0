/**
 * `custom_image` from its flags (`--dataset-name custom_image`) or from `datasets.customImage()`.
 * `resolve-dataset.ts` registers the flag resolver, `from-dsl.ts` the spec resolver.
 */
import type { ConfigIssue } from '../errors.ts'
import type { BackendName, CustomImageDatasetConfig } from './bench-config.ts'
import { type DatasetFlagContext, requirePath } from './dataset-flag-checks.ts'
import { DEFAULT_LOCAL_DATASETS } from './local-datasets-flags.ts'
import type { Reader } from './resolve.ts'

/** Options of `datasets.customImage` (`--dataset-name custom_image`). See docs/datasets.md. */
export interface CustomImageDatasetOptions {
  /** A `.jsonl` file of `{"prompt", "image_files"}` or `{"content": [parts]}` lines (`--dataset-path`). */
  path: string
  /** Output tokens per request (`--custom-output-len`). @default 256 */
  outputLen?: number
  /** Load local and http(s) images on the client and send them as base64 data URLs (`--custom-ensure-client-side-data`). @default false */
  ensureClientSideData?: boolean
  /** `--enable-multimodal-chat`: accepted; the body is the same. @default false */
  enableMultimodalChat?: boolean
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Keep file order (`--disable-shuffle`). @default false */
  disableShuffle?: boolean
  /** Do not repeat lines when the file has fewer than `numPrompts` (`--no-oversample`). @default false */
  noOversample?: boolean
}

/** A tagged `custom_image` dataset, as `datasets.customImage()` returns it. */
export interface CustomImageDatasetSpec extends CustomImageDatasetOptions {
  readonly kind: 'custom_image'
}

const NEEDS_CHAT = (backend: BackendName): string =>
  `custom_image needs --backend openai-chat (it sends images in chat messages); got --backend ${backend}`

/** `--dataset-name custom_image`: the path, `--custom-output-len` (at least 1) and the image switches. */
export function resolveCustomImageFlags(read: Reader, context: DatasetFlagContext): CustomImageDatasetConfig {
  const { backend, issues } = context
  if (backend !== 'openai-chat') issues.push({ path: '--dataset-name', message: NEEDS_CHAT(backend) })
  const path = requirePath(read, 'custom_image', 'a .jsonl file', issues)
  return {
    kind: 'custom_image',
    path,
    outputLen:
      read.int('--output-len', 1) ??
      read.int('--custom-output-len', 1) ??
      DEFAULT_LOCAL_DATASETS.custom.outputLen,
    ensureClientSideData: read.bool('--custom-ensure-client-side-data'),
    enableMultimodalChat: read.bool('--enable-multimodal-chat'),
    disableShuffle: read.bool('--disable-shuffle'),
    noOversample: read.bool('--no-oversample'),
  }
}

/** Validates a `datasets.customImage()` spec, pushing every issue with its DSL path. */
export function resolveCustomImageSpec(
  spec: CustomImageDatasetOptions,
  ctx: { issues: ConfigIssue[]; at: (path: string) => string; backend: BackendName },
): CustomImageDatasetConfig {
  const { issues, at, backend } = ctx
  if (backend !== 'openai-chat') {
    issues.push({
      path: at('dataset'),
      message: `datasets.customImage() needs endpoint({ backend: 'openai-chat' }) (it sends images in chat messages); got '${backend}'`,
    })
  }
  if (typeof spec.path !== 'string' || !spec.path.endsWith('.jsonl')) {
    issues.push({
      path: at('dataset.path'),
      message: `must be a .jsonl file (got ${JSON.stringify(spec.path)})`,
    })
  }
  const outputLen = spec.outputLen ?? DEFAULT_LOCAL_DATASETS.custom.outputLen
  if (!(Number.isInteger(outputLen) && outputLen >= 1)) {
    issues.push({
      path: at('dataset.outputLen'),
      message: `must be an integer of at least 1 (got ${outputLen})`,
    })
  }
  return {
    kind: 'custom_image',
    path: spec.path ?? '',
    outputLen,
    ensureClientSideData: spec.ensureClientSideData ?? false,
    enableMultimodalChat: spec.enableMultimodalChat ?? false,
    disableShuffle: spec.disableShuffle ?? false,
    noOversample: spec.noOversample ?? false,
  }
}
