/**
 * `custom_image` from its flags (`--dataset-name custom_image`; `datasets.customImage()` through
 * the DSL door). `resolvers.ts` registers the resolver.
 */
import type { BackendName, CustomImageDatasetConfig } from '../config/bench-config.ts'
import { type DatasetFlagContext, requireJsonl, requirePath } from '../config/dataset-flag-checks.ts'
import type { Reader } from '../config/resolve.ts'
import { DEFAULT_LOCAL_DATASETS } from './resolve-local.ts'

const NEEDS_CHAT = (backend: BackendName): string =>
  `custom_image needs --backend openai-chat (it sends images in chat messages); got --backend ${backend}`

/** `--dataset-name custom_image`: the path, `--custom-output-len` (at least 1) and the image switches. */
export function resolveCustomImageFlags(read: Reader, context: DatasetFlagContext): CustomImageDatasetConfig {
  const { backend, issues } = context
  if (backend !== 'openai-chat') issues.push({ path: '--dataset-name', message: NEEDS_CHAT(backend) })
  const path = requirePath(read, 'custom_image', 'a .jsonl file', issues)
  requireJsonl(path, issues)
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
