/**
 * Resolvers of the synthetic datasets: random, random-mm and random-rerank.
 * `resolvers.ts` registers them by name.
 */
import type {
  BackendName,
  DatasetConfig,
  RandomDatasetConfig,
  RandomRerankDatasetConfig,
} from '../config/bench-config.ts'
import {
  type DatasetFlagContext,
  type DatasetFlagResolver,
  needsTokenizer,
  rejectPath,
} from '../config/dataset-flag-checks.ts'
import { defaultBenchConfig, POOLING_BACKENDS } from '../config/defaults.ts'
import type { Reader } from '../config/resolve.ts'
import type { ConfigIssue } from '../errors.ts'
import {
  DEFAULT_MM_BUCKET_CONFIG,
  DEFAULT_MM_LIMIT,
  parseBucketConfig,
  parseMmLimit,
  parseRangeRatio,
} from './index.ts'

/** `--dataset-name` → resolver. */
export const SYNTHETIC_DATASET_RESOLVERS = {
  random: resolveRandom,
  'random-mm': resolveRandomMm,
  'random-rerank': resolveRandomRerank,
} as const satisfies Record<string, DatasetFlagResolver>

function resolveRandom(read: Reader, context: DatasetFlagContext): DatasetConfig {
  const { backend, issues } = context
  rejectPath(read, 'random', issues)
  needsTokenizer('random', context)
  const dataset = defaultBenchConfig().dataset
  Object.assign(dataset, randomLengths(read, dataset))
  dataset.batchSize = read.int('--random-batch-size', 1) ?? 1
  if (dataset.batchSize > 1) checkBatchBackend(backend, dataset.batchSize, issues)
  dataset.promptTokenIds = read.bool('--prompt-token-ids')
  if (dataset.promptTokenIds && backend === 'openai-chat') {
    issues.push({
      path: '--prompt-token-ids',
      message: 'needs a completions backend (vllm or openai); chat sends text',
    })
  } else if (dataset.promptTokenIds && !TOKEN_ID_BACKENDS.includes(backend)) {
    issues.push({
      path: '--prompt-token-ids',
      message: `needs a backend that sends token ids (${TOKEN_ID_BACKENDS.join(', ')}); ${backend} sends text`,
    })
  }
  return dataset
}

function resolveRandomMm(read: Reader, context: DatasetFlagContext): DatasetConfig {
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
    ...randomLengths(read, defaultBenchConfig().dataset),
    baseItemsPerRequest: read.int('--random-mm-base-items-per-request', 0) ?? 1,
    numMmItemsRangeRatio: unitInterval(read, '--random-mm-num-mm-items-range-ratio', issues) ?? 0,
    limitMmPerPrompt: read.parsed('--random-mm-limit-mm-per-prompt', parseMmLimit) ?? { ...DEFAULT_MM_LIMIT },
    buckets:
      read.parsed('--random-mm-bucket-config', parseBucketConfig) ??
      parseBucketConfig(DEFAULT_MM_BUCKET_CONFIG),
    enableMultimodalChat: read.bool('--enable-multimodal-chat'),
  }
}

/**
 * The lengths random and random-mm share: `--input-len`/`--output-len` before their `--random-*`
 * forms, then the prefix length and range ratio, each falling back to `defaults`.
 */
function randomLengths(
  read: Reader,
  defaults: RandomDatasetConfig,
): Pick<RandomDatasetConfig, 'inputLen' | 'outputLen' | 'prefixLen' | 'rangeRatio'> {
  return {
    inputLen: read.int('--input-len', 1) ?? read.int('--random-input-len', 1) ?? defaults.inputLen,
    outputLen: read.int('--output-len', 1) ?? read.int('--random-output-len', 1) ?? defaults.outputLen,
    prefixLen: read.int('--random-prefix-len', 0) ?? defaults.prefixLen,
    rangeRatio: read.parsed('--random-range-ratio', parseRangeRatio) ?? defaults.rangeRatio,
  }
}

/** Backends whose body can carry token ids instead of text. */
const TOKEN_ID_BACKENDS: readonly BackendName[] = ['vllm', 'openai', 'openai-embeddings', 'vllm-pooling']

/** Embedding backends that send random-mm's images (Python's clip and vlm2vec request functions). */
const IMAGE_EMBEDDING_BACKENDS: readonly BackendName[] = [
  'openai-embeddings-clip',
  'openai-embeddings-vlm2vec',
  'infinity-embeddings-clip',
]

/** Pooling backends that send one chat message per request, so one input. */
const MESSAGE_EMBEDDING_BACKENDS: readonly BackendName[] = [
  'openai-embeddings-chat',
  'openai-embeddings-clip',
  'openai-embeddings-vlm2vec',
]

/** Several inputs per request exist only on pooling backends that take a list of inputs. */
function checkBatchBackend(backend: BackendName, batchSize: number, issues: ConfigIssue[]): void {
  if (!POOLING_BACKENDS.includes(backend)) {
    issues.push({
      path: '--random-batch-size',
      message: `must be 1 with a generation backend (got ${batchSize}); batches need ${POOLING_BACKENDS.join(', ')}`,
    })
  } else if (MESSAGE_EMBEDDING_BACKENDS.includes(backend)) {
    issues.push({
      path: '--random-batch-size',
      message: `must be 1 with --backend ${backend} (got ${batchSize}): it sends one message per request`,
    })
  }
}

/** Backends random-rerank can drive: a rerank API, or embeddings of query and documents. */
const RERANK_BACKENDS: readonly BackendName[] = ['vllm-rerank', 'openai-embeddings', 'vllm-pooling']

function resolveRandomRerank(read: Reader, context: DatasetFlagContext): DatasetConfig {
  const { backend, issues } = context
  if (!RERANK_BACKENDS.includes(backend)) {
    issues.push({
      path: '--dataset-name',
      message: `random-rerank needs a pooling backend that takes a list of inputs (${RERANK_BACKENDS.join(', ')}); got --backend ${backend}`,
    })
  }
  rejectPath(read, 'random-rerank', issues)
  needsTokenizer('random-rerank', context)
  const random = defaultBenchConfig().dataset
  const config: RandomRerankDatasetConfig = {
    kind: 'random-rerank',
    inputLen: read.int('--input-len', 1) ?? read.int('--random-input-len', 1) ?? random.inputLen,
    rangeRatio: read.parsed('--random-range-ratio', parseRangeRatio) ?? random.rangeRatio,
    batchSize: read.int('--random-batch-size', 1) ?? 1,
    noReranker: read.bool('--no-reranker'),
  }
  if (config.noReranker && config.batchSize < 2) {
    issues.push({
      path: '--random-batch-size',
      message: `must be at least 2 with --no-reranker: the query takes one input of each request (got ${config.batchSize})`,
    })
  }
  return config
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
