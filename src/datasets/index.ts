import type { DatasetConfig } from '../config/bench-config.ts'
import type { SampleRequest } from '../config/records.ts'
import { DatasetError } from '../errors.ts'
import type { Tokenizer } from '../tokenizer/index.ts'
import type { DatasetContext } from './dataset-module.ts'
import { generateCustom } from './local/custom.ts'
import { generateCustomImage } from './local/custom-image.ts'
import { generatorOf } from './registry.ts'

export type { SampleRequest } from '../config/records.ts'
export type { DatasetContext } from './dataset-module.ts'
export {
  DEFAULT_MM_BUCKET_CONFIG,
  DEFAULT_MM_LIMIT,
  parseBucketConfig,
  parseMmLimit,
} from './random/random-mm-config.ts'
export { parseRangeRatio } from './random/range-ratio.ts'

/** `--skip-tokenizer-init`: a context without a tokenizer, which only `custom` accepts (Python). */
export type TokenizerFreeContext = Omit<DatasetContext, 'tokenizer'> & { tokenizer?: Tokenizer }

/**
 * Produces the run's requests, in order, with prompt lengths exact under `context.tokenizer`, from
 * the generator the dataset's module registers (`registry.ts`). Without a tokenizer
 * (`--skip-tokenizer-init`) only `custom` works; the config resolvers reject the others first,
 * and a `DatasetError` here names the dataset.
 */
export function generateRequests(
  dataset: DatasetConfig,
  context: TokenizerFreeContext,
): Promise<SampleRequest[]> {
  if (context.tokenizer === undefined) {
    if (dataset.kind === 'custom') return generateCustom(dataset, context)
    if (dataset.kind === 'custom_image') return generateCustomImage(dataset, context)
    return Promise.reject(
      new DatasetError(
        `${dataset.kind}: needs a tokenizer; only the custom dataset runs with --skip-tokenizer-init`,
      ),
    )
  }
  return generatorOf(dataset)(dataset, { ...context, tokenizer: context.tokenizer })
}
