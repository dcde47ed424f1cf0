import { parseRangeRatio } from '../datasets/index.ts'
import type { ConfigIssue } from '../errors.ts'
import type { BackendName, DatasetConfig, TokenizerConfig } from './bench-config.ts'
import { defaultBenchConfig } from './defaults.ts'
import { HUB_DATASET_RESOLVERS } from './hub-datasets-flags.ts'
import { LOCAL_DATASET_RESOLVERS } from './local-datasets-flags.ts'
import type { Reader } from './resolve.ts'

/** `--dataset-name` values servebench implements. */
export const DATASET_NAMES = [
  'random',
  'custom',
  'sonnet',
  'prefix_repetition',
  'prefix-repetition',
  'burstgpt',
  'speed_bench',
  'speed-bench',
  'spec_bench',
  'timed_trace',
  'timed-trace',
  'sharegpt',
  'hf',
] as const

export type DatasetName = (typeof DATASET_NAMES)[number]

export interface DatasetFlagContext {
  backend: BackendName
  tokenizer: TokenizerConfig
  issues: ConfigIssue[]
}

/** One resolver per `--dataset-name`: reads its own flags, reports its own issues. */
const RESOLVERS: {
  readonly [K in DatasetName]: (read: Reader, context: DatasetFlagContext) => DatasetConfig
} = {
  random: resolveRandom,
  ...LOCAL_DATASET_RESOLVERS,
  ...HUB_DATASET_RESOLVERS,
}

export function resolveDatasetFlags(
  name: DatasetName,
  read: Reader,
  context: DatasetFlagContext,
): DatasetConfig {
  return RESOLVERS[name](read, context)
}

function resolveRandom(read: Reader, { backend, tokenizer, issues }: DatasetFlagContext): DatasetConfig {
  if (read.string('--dataset-path') !== undefined) {
    issues.push({
      path: '--dataset-path',
      message: 'cannot be used with --dataset-name random (it generates its prompts)',
    })
  }
  if (tokenizer.skipInit) {
    issues.push({
      path: '--skip-tokenizer-init',
      message: 'cannot be used with --dataset-name random: it needs a tokenizer',
    })
  }
  const dataset = defaultBenchConfig().dataset
  dataset.inputLen = read.int('--input-len', 1) ?? read.int('--random-input-len', 1) ?? dataset.inputLen
  dataset.outputLen = read.int('--output-len', 1) ?? read.int('--random-output-len', 1) ?? dataset.outputLen
  dataset.prefixLen = read.int('--random-prefix-len', 0) ?? dataset.prefixLen
  dataset.rangeRatio = read.parsed('--random-range-ratio', parseRangeRatio) ?? dataset.rangeRatio
  dataset.batchSize = read.int('--random-batch-size', 1) ?? 1
  if (dataset.batchSize > 1) {
    issues.push({
      path: '--random-batch-size',
      message: `must be 1 with a generation backend (got ${dataset.batchSize})`,
    })
  }
  dataset.promptTokenIds = read.bool('--prompt-token-ids')
  if (dataset.promptTokenIds && backend === 'openai-chat') {
    issues.push({
      path: '--prompt-token-ids',
      message: 'needs a completions backend (vllm or openai); chat sends text',
    })
  }
  return dataset
}
