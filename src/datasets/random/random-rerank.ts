import type { BackendName } from '../../config/bench-config.ts'
import { type DatasetFlagContext, needsTokenizer, rejectPath } from '../../config/dataset-flag-checks.ts'
import { f } from '../../config/dsl-fields.ts'
import type { SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { ConfigError, DatasetError } from '../../errors.ts'
import { createRng, type Rng } from '../../rng.ts'
import type { Tokenizer } from '../../tokenizer/index.ts'
import { type DatasetContext, type DslFieldTable, defineDataset, flagRow } from '../dataset-module.ts'
import {
  RANDOM_BATCH_SIZE,
  RANDOM_INPUT_LEN,
  RANDOM_RANGE_RATIO,
  readInputLen,
  readRangeRatio,
} from './lengths.ts'
import { checkRangeRatio, inputBounds, type RangeRatio } from './range-ratio.ts'

/** `--dataset-name random-rerank`: one query and batches of documents (pooling backends). Rust: datasets/random_rerank.rs. */
export interface RandomRerankDatasetConfig {
  kind: 'random-rerank'
  /** Tokens of query + document (special tokens included). */
  inputLen: number
  rangeRatio: RangeRatio
  /** Documents per request (reranker) or query + documents per request (`--no-reranker`). */
  batchSize: number
  /** `--no-reranker`: the query is one more input, not paired with each document. */
  noReranker: boolean
}

/** Options of `datasets.randomRerank` (`--dataset-name random-rerank`). */
export interface RandomRerankDatasetOptions {
  /** Tokens of query + document. @default 1024 */
  inputLen?: number
  /** Documents in the run (`--num-prompts`; with `noReranker`, documents + 1). @default 1000 */
  numPrompts?: number
  /** Length spread r in [0, 1). @default 0 */
  rangeRatio?: number
  /** Documents per request (with `noReranker`: query + documents). @default 1 */
  batchSize?: number
  /** An embedding model instead of a reranker: the query is one more input (`--no-reranker`). @default false */
  noReranker?: boolean
}

const NO_RERANKER = flagRow(
  '--no-reranker',
  'boolean',
  'random-rerank for an embedding model: the query is one more input.',
)

/** `--dataset-name random-rerank`: one query and batches of documents, for rerank and embedding backends. */
export const randomRerankDataset = defineDataset<RandomRerankDatasetConfig, RandomRerankDatasetOptions>({
  kind: 'random-rerank',
  summary: 'one query and batches of documents (rerank and embedding backends)',
  datasetName: 'random-rerank',
  builder: 'randomRerank',
  fields: {
    inputLen: f(RANDOM_INPUT_LEN.name),
    numPrompts: f('--num-prompts'),
    rangeRatio: f(RANDOM_RANGE_RATIO.name, 'numberOrJson'),
    batchSize: f(RANDOM_BATCH_SIZE.name),
    noReranker: f(NO_RERANKER.name, 'switch'),
  } satisfies DslFieldTable<RandomRerankDatasetOptions>,
  flags: [RANDOM_INPUT_LEN, RANDOM_RANGE_RATIO, RANDOM_BATCH_SIZE, NO_RERANKER],
  resolve: resolveRandomRerank,
  generate: generateRandomRerank,
})

/** Backends random-rerank can drive: a rerank API, or embeddings of query and documents. */
const RERANK_BACKENDS: readonly BackendName[] = ['vllm-rerank', 'openai-embeddings', 'vllm-pooling']

function resolveRandomRerank(read: Reader, context: DatasetFlagContext): RandomRerankDatasetConfig {
  const { backend, issues } = context
  if (!RERANK_BACKENDS.includes(backend)) {
    issues.push({
      path: '--dataset-name',
      message: `random-rerank needs a pooling backend that takes a list of inputs (${RERANK_BACKENDS.join(', ')}); got --backend ${backend}`,
    })
  }
  rejectPath(read, 'random-rerank', issues)
  needsTokenizer('random-rerank', context)
  const config: RandomRerankDatasetConfig = {
    kind: 'random-rerank',
    inputLen: readInputLen(read),
    rangeRatio: readRangeRatio(read),
    batchSize: read.int(RANDOM_BATCH_SIZE.name, 1) ?? 1,
    noReranker: read.bool(NO_RERANKER.name),
  }
  if (config.noReranker && config.batchSize < 2) {
    issues.push({
      path: '--random-batch-size',
      message: `must be at least 2 with --no-reranker: the query takes one input of each request (got ${config.batchSize})`,
    })
  }
  return config
}

/**
 * `--dataset-name random-rerank` (Rust: RandomRerankDataset, datasets/random_rerank.rs). One query
 * for the whole run and batches of documents; each request is `promptList = [query, ...documents]`
 * with expected output 0.
 *
 * With a reranker (the default) each document is scored as `query <sep> document`, so the query
 * takes about half of `inputLen` and each document the rest: `num_prompts` documents in requests of
 * `batchSize`, `promptLen = (queryLen + 1) × documents + Σ documentLen`. With `noReranker` (an
 * embedding model that embeds the query as one more input) the query and each document are full
 * length: `num_prompts − 1` documents in requests of `batchSize − 1`,
 * `promptLen = queryLen + Σ documentLen`.
 */
export async function generateRandomRerank(
  config: RandomRerankDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const { tokenizer, numPrompts, seed } = context
  const ratio = checkRangeRatio(config.rangeRatio).input
  const reranker = !config.noReranker
  if (!reranker && (numPrompts < 2 || config.batchSize < 2)) {
    throw new ConfigError([
      {
        path: '--no-reranker',
        message: `needs --num-prompts > 1 and --random-batch-size > 1 (got ${numPrompts} and ${config.batchSize}): the query takes one input of each request`,
      },
    ])
  }
  const allowed = tokenizer.allowedTokenIds()
  if (allowed.length === 0)
    throw new DatasetError(`random-rerank: tokenizer "${tokenizer.id}" has no usable token ids`)
  const sep = reranker ? 1 : 0
  const realLen = Math.max(0, config.inputLen - tokenizer.numSpecialTokens)
  const rng = createRng(seed)
  const queryParam = reranker ? Math.floor(realLen / 2) - sep : realLen
  const queryLen = draw(rng, queryParam, ratio)
  const docParam = reranker ? realLen - queryLen - sep : realLen
  if (docParam <= 0) {
    throw new ConfigError([
      {
        path: '--random-input-len',
        message: `is too small for random-rerank: ${config.inputLen} tokens leave no room for a document after a ${queryLen}-token query`,
      },
    ])
  }
  const numDocs = reranker ? numPrompts : numPrompts - 1
  const docsPerRequest = reranker ? config.batchSize : config.batchSize - 1
  const drawn = Array.from({ length: numDocs }, () => ({
    len: draw(rng, docParam, ratio),
    offset: rng.int(0, tokenizer.vocabSize - 1),
  }))
  const queryOffset = rng.int(0, tokenizer.vocabSize - 1)
  const query = await textOf(tokenizer, allowed, queryOffset, 0, queryLen)
  const docs: Array<{ text: string; len: number }> = []
  for (const [i, d] of drawn.entries()) docs.push(await textOf(tokenizer, allowed, d.offset, i + 1, d.len))

  const requests: SampleRequest[] = []
  for (let start = 0; start < docs.length; start += docsPerRequest) {
    const batch = docs.slice(start, start + docsPerRequest)
    const docTokens = batch.reduce((sum, d) => sum + d.len, 0)
    requests.push({
      prompt: query.text,
      promptList: [query.text, ...batch.map((d) => d.text)],
      promptLen: reranker ? (query.len + sep) * batch.length + docTokens : query.len + docTokens,
      expectedOutputLen: 0,
    })
  }
  return requests
}

/** One length from the range-ratio bounds of `param`, at least 1. */
function draw(rng: Rng, param: number, ratio: number): number {
  const [low, high] = inputBounds(Math.max(1, param), ratio)
  return Math.max(1, rng.int(low, high))
}

/**
 * Tokens `allowed[(offset + index + j) % |allowed|]`, decoded, re-encoded, cut to `len`, decoded
 * again; `len` is the count that survived the round trip.
 */
async function textOf(
  tokenizer: Tokenizer,
  allowed: readonly number[],
  offset: number,
  index: number,
  len: number,
): Promise<{ text: string; len: number }> {
  const ids = Array.from({ length: len }, (_, j) => allowed[(offset + index + j) % allowed.length]!)
  const first = await tokenizer.decode(ids, { skipSpecialTokens: true })
  const encoded = (await tokenizer.encode(first)).slice(0, len)
  return { text: await tokenizer.decode(encoded, { skipSpecialTokens: true }), len: encoded.length }
}
