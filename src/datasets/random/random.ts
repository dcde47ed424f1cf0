import { type BackendName, POOLING_BACKENDS } from '../../config/bench-config.ts'
import { type DatasetFlagContext, needsTokenizer, rejectPath } from '../../config/dataset-flag-checks.ts'
import { defaultBenchConfig } from '../../config/defaults.ts'
import { f } from '../../config/dsl-fields.ts'
import type { SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { ConfigError, type ConfigIssue, DatasetError } from '../../errors.ts'
import { createRng, type Rng } from '../../rng.ts'
import type { Tokenizer } from '../../tokenizer/index.ts'
import {
  type DatasetContext,
  type DslFieldTable,
  defineDataset,
  flagRow,
  type TaggedDataset,
} from '../dataset-module.ts'
import { decodeToTargetLen } from '../decode-to-target.ts'
import { batchRequests } from './batch.ts'
import { CACHE_HIT_FRACTION, CACHE_RATIO, planCacheHitPrompts, readCacheHit } from './cache-hit.ts'
import { type BuildPromptsOptions, buildRandomPrompts, promptText } from './generate-pool.ts'
import {
  RANDOM_BATCH_SIZE,
  RANDOM_TEXT_FIELDS,
  RANDOM_TEXT_FLAGS,
  type RandomTextLengths,
  readRandomLengths,
} from './lengths.ts'
import { generateMultiTurnConversations } from './multi-turn.ts'
import type { RandomPromptPlan } from './random-prompts.ts'
import { checkRangeRatio, inputBounds, outputBounds } from './range-ratio.ts'

export interface RandomDatasetConfig extends RandomTextLengths {
  kind: 'random'
  batchSize: number
  /** Send token-id arrays instead of text. */
  promptTokenIds: boolean
  /**
   * Rust's bimodal prefix cache (`--random-cache-hit-fraction`, `--random-cache-ratio`): a
   * `fraction` of the prompts are warm and start with `ratio` of their length from one shared
   * prefix; the rest share nothing. `inputLen` is then each prompt's whole length. Absent when off.
   */
  cacheHit?: { fraction: number; ratio: number }
}

/** Options of `datasets.random`. */
export interface RandomDatasetOptions {
  /** Prompt tokens per request. @default 1024 */
  inputLen?: number
  /** Output tokens asked per request (`max_tokens`). @default 128 */
  outputLen?: number
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Shared prefix tokens. @default 0 */
  prefixLen?: number
  /** Length spread: one number for both, or per side. @default 0 */
  rangeRatio?: number | { input: number; output: number }
  /** Prompts per request (embeddings batch). @default 1 */
  batchSize?: number
  /** Send token-id arrays instead of text. @default false */
  promptTokenIds?: boolean
  /**
   * Share of the prompts that are warm (a prefix-cache hit): each starts with `cacheRatio` of its
   * length from one shared prefix (`--random-cache-hit-fraction`; Rust). Needs `cacheRatio` and
   * `promptTokenIds`; `inputLen` is then the whole prompt. @default 0 (off)
   */
  cacheHitFraction?: number
  /** Share of each warm prompt that is the shared, cached prefix (`--random-cache-ratio`; Rust). @default 0 (off) */
  cacheRatio?: number
}

/** A tagged `random` dataset, as `datasets.random()` returns it. */
export type RandomDatasetSpec = TaggedDataset<RandomDatasetOptions, 'random'>

const PROMPT_TOKEN_IDS = flagRow(
  '--prompt-token-ids',
  'boolean',
  'Send prompts as token-id lists (completions backends).',
  { parity: 'rust' },
)

/** `--dataset-name random`: random token prompts of exact length (the default dataset). */
export const randomDataset = defineDataset<RandomDatasetConfig, RandomDatasetOptions>({
  kind: 'random',
  summary: 'random token prompts of exact length (the default)',
  datasetName: 'random',
  builder: 'random',
  fields: {
    ...RANDOM_TEXT_FIELDS,
    numPrompts: f('--num-prompts'),
    batchSize: f(RANDOM_BATCH_SIZE.name),
    promptTokenIds: f(PROMPT_TOKEN_IDS.name, 'switch'),
    cacheHitFraction: f(CACHE_HIT_FRACTION.name),
    cacheRatio: f(CACHE_RATIO.name),
  } satisfies DslFieldTable<RandomDatasetOptions>,
  flags: [...RANDOM_TEXT_FLAGS, RANDOM_BATCH_SIZE, PROMPT_TOKEN_IDS, CACHE_HIT_FRACTION, CACHE_RATIO],
  resolve: resolveRandom,
  // Pooling backends send several random prompts per request (`--random-batch-size`).
  generate: async (config, context) => {
    const requests = await generateRandom(config, context)
    return config.batchSize > 1 ? batchRequests(requests, config.batchSize) : requests
  },
  alignsToServerTokenizer: true,
  runIssues: randomRunIssues,
  conversations: generateMultiTurnConversations,
})

/**
 * Largest `--random-input-len` (and `--random-prefix-len`) a run accepts: ten times the longest
 * context window served today. Beyond it a prompt's text no longer fits in a V8 string, and the
 * process would die in dataset generation with a fatal error instead of a message.
 */
export const MAX_RANDOM_INPUT_LEN = 10_000_000

function randomRunIssues(config: RandomDatasetConfig): ConfigIssue[] {
  return (
    [
      ['--random-input-len', config.inputLen],
      ['--random-prefix-len', config.prefixLen],
    ] as const
  )
    .filter(([, value]) => value > MAX_RANDOM_INPUT_LEN)
    .map(([path, value]) => ({
      path,
      message: `must be at most ${MAX_RANDOM_INPUT_LEN} tokens (got ${value})`,
    }))
}

function resolveRandom(read: Reader, context: DatasetFlagContext): RandomDatasetConfig {
  const { backend, issues } = context
  rejectPath(read, 'random', issues)
  needsTokenizer('random', context)
  const dataset = defaultBenchConfig().dataset
  Object.assign(dataset, readRandomLengths(read))
  dataset.batchSize = read.int(RANDOM_BATCH_SIZE.name, 1) ?? 1
  if (dataset.batchSize > 1) checkBatchBackend(backend, dataset.batchSize, issues)
  dataset.promptTokenIds = read.bool(PROMPT_TOKEN_IDS.name)
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
  const cacheHit = readCacheHit(read, dataset, issues)
  if (cacheHit !== undefined) dataset.cacheHit = cacheHit
  return dataset
}

/** Backends whose body can carry token ids instead of text. */
const TOKEN_ID_BACKENDS: readonly BackendName[] = ['vllm', 'openai', 'openai-embeddings', 'vllm-pooling']

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

/** Rust seeds the shared prefix apart from the per-request draws, so the prefix length does not move them. */
const PREFIX_SEED_OFFSET = 0xdead

/**
 * The `random` dataset (Python: `RandomDataset.sample`). Per request: an input length drawn from
 * [floor(L'(1−r)), ceil(L'(1+r))] with L' = inputLen − numSpecialTokens, an output length from
 * [max(1, floor(O(1−r))), ceil(O(1+r))], and an offset in [0, vocab); the prompt is the shared
 * random prefix followed by `allowed[(offset + i + j) % |allowed|]`, decoded and re-encoded until
 * its length is the target. `promptLen` is the exact count of `encode(prompt)` without special
 * tokens, as in Python; the server sees `promptLen + numSpecialTokens`.
 * With `promptTokenIds`, the ids are sent as they are (exact length, no re-encoding) and
 * `prompt` holds their decoded text. Prompts are built on worker threads when the run is large
 * enough (see `buildRandomPrompts`); `options.threads` overrides that choice.
 */
export async function generateRandom(
  config: RandomDatasetConfig,
  context: DatasetContext,
  options: BuildPromptsOptions = {},
): Promise<SampleRequest[]> {
  const { cacheHit } = config
  const { plan, outputLens } =
    cacheHit !== undefined
      ? await planCacheHitPrompts({ ...config, cacheHit }, context, (len, allowed) =>
          buildPrefix(context, len, allowed),
        )
      : await planRandomPrompts(config, context)
  return buildRandomRequests(context.tokenizer, plan, outputLens, options)
}

/** The length fields a random plan is drawn from (`random`, `random-mm`). */
export type RandomLengths = RandomTextLengths & Pick<RandomDatasetConfig, 'promptTokenIds'>

/** A drawn plan, the output lengths, and the generator, to draw more per-request values after them. */
export interface DrawnRandomPlan {
  plan: RandomPromptPlan
  outputLens: Int32Array
  rng: Rng
}

/**
 * Draws every random value of the prompts on the calling thread, per request in order: input
 * length, output length, vocabulary offset (from one generator seeded `seed`); the shared prefix
 * comes from its own generator. Building the prompts on workers then gives the same requests.
 */
export async function planRandomPrompts(
  lengths: RandomLengths,
  context: DatasetContext,
): Promise<DrawnRandomPlan> {
  const { tokenizer, numPrompts, seed } = context
  const ratio = checkRangeRatio(lengths.rangeRatio)
  const realInputLen = Math.max(0, lengths.inputLen - tokenizer.numSpecialTokens)
  const [inputLow, inputHigh] = inputBounds(realInputLen, ratio.input)
  const [outputLow, outputHigh] = outputBounds(lengths.outputLen, ratio.output)
  if (lengths.prefixLen + inputLow < 1) {
    throw new ConfigError([
      {
        path: '--random-input-len',
        message:
          `is too small: with ${tokenizer.numSpecialTokens} special tokens and --random-range-ratio ` +
          `${ratio.input}, the shortest prompt (prefix + sampled) has ${lengths.prefixLen + inputLow} tokens; ` +
          'raise --random-input-len or --random-prefix-len, or lower --random-range-ratio',
      },
    ])
  }
  const allowed = tokenizer.allowedTokenIds()
  if (allowed.length === 0)
    throw new DatasetError(`random: tokenizer "${tokenizer.id}" has no usable token ids`)

  const prefix = await buildPrefix(context, lengths.prefixLen, allowed)
  const rng = createRng(seed)
  const inputLens = new Int32Array(numPrompts)
  const offsets = new Int32Array(numPrompts)
  const outputLens = new Int32Array(numPrompts)
  for (let i = 0; i < numPrompts; i++) {
    inputLens[i] = rng.int(inputLow, inputHigh)
    outputLens[i] = rng.int(outputLow, outputHigh)
    offsets[i] = rng.int(0, tokenizer.vocabSize - 1)
  }
  return { plan: { prefix, inputLens, offsets, promptTokenIds: lengths.promptTokenIds }, outputLens, rng }
}

/** Builds the prompts of a plan (on workers when it pays) into requests, in order. */
export async function buildRandomRequests(
  tokenizer: Tokenizer,
  plan: RandomPromptPlan,
  outputLens: Int32Array,
  options: BuildPromptsOptions = {},
): Promise<SampleRequest[]> {
  const built = await buildRandomPrompts(tokenizer, plan, options)
  const count = plan.inputLens.length
  const requests: SampleRequest[] = new Array(count)
  for (let i = 0; i < count; i++) {
    const text = built.prompts[i]!
    const request: SampleRequest = {
      prompt: typeof text === 'string' ? text : '',
      promptLen: built.promptLens[i]!,
      expectedOutputLen: outputLens[i]!,
    }
    if (typeof text !== 'string') lazyPrompt(request, text)
    if (built.ids !== undefined) request.promptTokenIds = built.ids[i]!
    requests[i] = request
  }
  const mismatchTotal = built.mismatchTotal
  if (mismatchTotal !== 0) {
    console.warn(
      `servebench: random prompts have ${Math.abs(mismatchTotal)} ${mismatchTotal > 0 ? 'more' : 'fewer'} ` +
        'tokens in total than drawn after decoding and re-encoding; prompt lengths report the real counts',
    )
  }
  return requests
}

// A prompt a worker sent stays UTF-8 (half the memory of a V8 string outside Latin-1); `prompt` is
// decoded on each read (the dispatcher reads it once per send). Own and enumerable, so the request
// compares, spreads and serialises like a plain one; assigning it stores the string.
function lazyPrompt(request: SampleRequest, bytes: Uint8Array): void {
  Object.defineProperty(request, 'prompt', {
    enumerable: true,
    configurable: true,
    get: () => promptText(bytes),
    set(value: string) {
      Object.defineProperty(request, 'prompt', {
        value,
        enumerable: true,
        configurable: true,
        writable: true,
      })
    },
  })
}

// Rust: the prefix is fitted on its own first, so its text is the same at the start of every prompt.
async function buildPrefix(context: DatasetContext, prefixLen: number, allowed: number[]): Promise<number[]> {
  if (prefixLen <= 0) return []
  const rng = createRng(context.seed + PREFIX_SEED_OFFSET)
  const ids = Array.from({ length: prefixLen }, () => allowed[rng.int(0, allowed.length - 1)]!)
  return (await decodeToTargetLen(context.tokenizer, ids, prefixLen, allowed)).ids
}
