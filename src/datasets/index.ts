import type { BackendName, DatasetConfig } from '../config/bench-config.ts'
import type { SampleRequest } from '../config/records.ts'
import { DatasetError } from '../errors.ts'
import type { Tokenizer } from '../tokenizer/index.ts'
import { generateHf } from './hub/hf.ts'
import { generateShareGpt } from './hub/sharegpt.ts'
import { generateBurstGpt } from './local/burstgpt.ts'
import { generateCustom } from './local/custom.ts'
import { generateCustomAudio } from './local/custom-audio.ts'
import { generateCustomImage } from './local/custom-image.ts'
import { generateSonnet } from './local/sonnet.ts'
import { generateSpecBench } from './local/spec-bench.ts'
import { generateSpeedBench } from './local/speed-bench.ts'
import { generateTimedTrace } from './local/timed-trace.ts'
import { batchRequests } from './random/batch.ts'
import { generatePrefixRepetition } from './random/prefix-repetition.ts'
import { generateRandom } from './random/random.ts'
import { generateRandomMm } from './random/random-mm.ts'
import { generateRandomRerank } from './random/random-rerank.ts'

export type { SampleRequest } from '../config/records.ts'
export {
  DEFAULT_MM_BUCKET_CONFIG,
  DEFAULT_MM_LIMIT,
  parseBucketConfig,
  parseMmLimit,
} from './random/random-mm-config.ts'
export { parseRangeRatio } from './random/range-ratio.ts'

/** What every dataset gets besides its own config. */
export interface DatasetContext {
  tokenizer: Tokenizer
  /** `--num-prompts`. */
  numPrompts: number
  /** `--seed`: the same seed gives the same requests. */
  seed: number
  /** The run's backend: the chat backends leave the chat template to the server. undefined = completions. */
  backend?: BackendName
  /** `--chat-template-kwargs`, passed to the tokenizer's chat template. */
  chatTemplateKwargs?: Record<string, unknown>
}

/** `--skip-tokenizer-init`: a context without a tokenizer, which only `custom` accepts (Python). */
export type TokenizerFreeContext = Omit<DatasetContext, 'tokenizer'> & { tokenizer?: Tokenizer }

type DatasetGenerators = {
  [K in DatasetConfig['kind']]: (
    config: Extract<DatasetConfig, { kind: K }>,
    context: DatasetContext,
  ) => Promise<SampleRequest[]>
}

/** `--dataset-name` → generator. */
const DATASETS: DatasetGenerators = {
  random: generateRandom,
  'random-mm': generateRandomMm,
  custom: generateCustom,
  custom_audio: generateCustomAudio,
  custom_image: generateCustomImage,
  sonnet: generateSonnet,
  prefix_repetition: generatePrefixRepetition,
  burstgpt: generateBurstGpt,
  speed_bench: generateSpeedBench,
  spec_bench: generateSpecBench,
  timed_trace: generateTimedTrace,
  'random-rerank': generateRandomRerank,
  sharegpt: generateShareGpt,
  hf: generateHf,
}

/**
 * Produces the run's requests, in order, with prompt lengths exact under `context.tokenizer`.
 * Without a tokenizer (`--skip-tokenizer-init`) only `custom` works; the config resolvers reject
 * the others first, and a `DatasetError` here names the dataset.
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
  return generateWithTokenizer(dataset, { ...context, tokenizer: context.tokenizer })
}

function generateWithTokenizer(dataset: DatasetConfig, context: DatasetContext): Promise<SampleRequest[]> {
  const generate = DATASETS[dataset.kind] as (
    config: DatasetConfig,
    context: DatasetContext,
  ) => Promise<SampleRequest[]>
  // Pooling backends send several random prompts per request (`--random-batch-size`).
  if (dataset.kind === 'random' && dataset.batchSize > 1) {
    return generate(dataset, context).then((requests) => batchRequests(requests, dataset.batchSize))
  }
  return generate(dataset, context)
}
