import { type DatasetFlagContext, needsTokenizer, rejectPath } from '../../config/dataset-flag-checks.ts'
import { f } from '../../config/dsl-fields.ts'
import type { SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { ConfigError, DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { type DatasetContext, type DslFieldTable, defineDataset, flagRow } from '../dataset-module.ts'
import { decodeToTargetLen } from '../decode-to-target.ts'
import { shuffled } from '../sampling.ts'
import { type CommonOptions, DISABLE_SHUFFLE } from '../shared-flags.ts'

/** `--dataset-name prefix_repetition`: `numPrefixes` shared prefixes, each with random suffixes. */
export interface PrefixRepetitionDatasetConfig {
  kind: 'prefix_repetition'
  prefixLen: number
  suffixLen: number
  numPrefixes: number
  outputLen: number
  disableShuffle: boolean
}

/** Options of `datasets.prefixRepetition` (`--dataset-name prefix_repetition`). */
export interface PrefixRepetitionDatasetOptions extends CommonOptions {
  /** Tokens of each shared prefix. @default 256 */
  prefixLen?: number
  /** Tokens after the prefix, different per request. @default 256 */
  suffixLen?: number
  /** Distinct prefixes; `numPrompts / numPrefixes` requests share each. @default 10 */
  numPrefixes?: number
  /** Output tokens per request. @default 128 */
  outputLen?: number
  /** Keep prefix groups together instead of interleaving them. @default false */
  disableShuffle?: boolean
}

/** Upstream defaults (the parser of vllm/benchmarks/serve.py; Rust `cli.rs`). */
export const DEFAULT_PREFIX_REPETITION = {
  prefixLen: 256,
  suffixLen: 256,
  numPrefixes: 10,
  outputLen: 128,
} as const

const D = DEFAULT_PREFIX_REPETITION
const PREFIX_LEN = flagRow(
  '--prefix-repetition-prefix-len',
  'int',
  'prefix_repetition: tokens of each shared prefix.',
  {
    default: String(D.prefixLen),
  },
)
const SUFFIX_LEN = flagRow(
  '--prefix-repetition-suffix-len',
  'int',
  'prefix_repetition: tokens after the prefix.',
  {
    default: String(D.suffixLen),
  },
)
const NUM_PREFIXES = flagRow(
  '--prefix-repetition-num-prefixes',
  'int',
  'prefix_repetition: number of distinct prefixes.',
  { default: String(D.numPrefixes) },
)
const OUTPUT_LEN = flagRow(
  '--prefix-repetition-output-len',
  'int',
  'prefix_repetition: output tokens per request.',
  {
    default: String(D.outputLen),
  },
)

/** `--dataset-name prefix_repetition`: shared random prefixes, each request with its own suffix. */
export const prefixRepetitionDataset = defineDataset<
  PrefixRepetitionDatasetConfig,
  PrefixRepetitionDatasetOptions
>({
  kind: 'prefix_repetition',
  aliases: ['prefix-repetition'],
  summary: 'shared random prefixes with per-request suffixes',
  datasetName: 'prefix_repetition',
  builder: 'prefixRepetition',
  fields: {
    numPrompts: f('--num-prompts'),
    prefixLen: f(PREFIX_LEN.name),
    suffixLen: f(SUFFIX_LEN.name),
    numPrefixes: f(NUM_PREFIXES.name),
    outputLen: f(OUTPUT_LEN.name),
    disableShuffle: f(DISABLE_SHUFFLE.name, 'switch'),
  } satisfies DslFieldTable<PrefixRepetitionDatasetOptions>,
  flags: [PREFIX_LEN, SUFFIX_LEN, NUM_PREFIXES, OUTPUT_LEN, DISABLE_SHUFFLE],
  resolve: resolvePrefixRepetition,
  generate: generatePrefixRepetition,
  alignsToServerTokenizer: true,
})

function resolvePrefixRepetition(read: Reader, context: DatasetFlagContext): PrefixRepetitionDatasetConfig {
  needsTokenizer('prefix_repetition', context)
  rejectPath(read, 'prefix_repetition', context.issues)
  const config: PrefixRepetitionDatasetConfig = {
    kind: 'prefix_repetition',
    prefixLen: read.int(PREFIX_LEN.name, 0) ?? D.prefixLen,
    suffixLen: read.int(SUFFIX_LEN.name, 0) ?? D.suffixLen,
    numPrefixes: read.int(NUM_PREFIXES.name, 1) ?? D.numPrefixes,
    outputLen: read.int('--output-len', 1) ?? read.int(OUTPUT_LEN.name, 1) ?? D.outputLen,
    disableShuffle: read.bool(DISABLE_SHUFFLE.name),
  }
  if (config.prefixLen + config.suffixLen < 1) {
    context.issues.push({
      path: '--prefix-repetition-suffix-len',
      message: 'and --prefix-repetition-prefix-len are both 0; a prompt needs at least 1 token',
    })
  }
  return config
}

/** Rust seeds each prefix and each suffix apart, so one length does not move the other draws. */
const PREFIX_SEED_OFFSET = 0xf1f0
const SUFFIX_SEED_OFFSET = 0xbeef

/**
 * The `prefix_repetition` dataset (Python: `PrefixRepetitionRandomDataset`; Rust: datasets/prefix_repetition.rs).
 * `perPrefix = floor(numPrompts / numPrefixes)` requests share each prefix (the remainder is
 * dropped, as upstream). Prefix p is a random block of allowed tokens fitted to `prefixLen`
 * (seed + 0xF1F0 + p); request i adds its own fitted suffix (seed + 0xBEEF + i). The joined ids
 * are fitted once more, so `promptLen` is the exact count of `encode(prompt)`: normally
 * prefixLen + suffixLen (upstream reports that sum without re-encoding). The requests are then
 * shuffled with the seed unless `disableShuffle`, so prefix groups interleave.
 */
export async function generatePrefixRepetition(
  config: PrefixRepetitionDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const { tokenizer, numPrompts, seed } = context
  const perPrefix = Math.floor(numPrompts / config.numPrefixes)
  if (perPrefix < 1) {
    throw new ConfigError([
      {
        path: '--prefix-repetition-num-prefixes',
        message: `must be at most --num-prompts (got ${config.numPrefixes} prefixes for ${numPrompts} prompts)`,
      },
    ])
  }
  const allowed = tokenizer.allowedTokenIds()
  if (allowed.length === 0)
    throw new DatasetError(`prefix_repetition: tokenizer "${tokenizer.id}" has no usable token ids`)
  const block = async (length: number, blockSeed: number): Promise<number[]> => {
    if (length <= 0) return []
    const rng = createRng(blockSeed)
    const ids = Array.from({ length }, () => allowed[rng.int(0, allowed.length - 1)]!)
    return (await decodeToTargetLen(tokenizer, ids, length, allowed)).ids
  }

  const requests: SampleRequest[] = []
  let mismatchTotal = 0
  for (let p = 0; p < config.numPrefixes; p++) {
    const prefix = await block(config.prefixLen, seed + PREFIX_SEED_OFFSET + p)
    for (let k = 0; k < perPrefix; k++) {
      const i = p * perPrefix + k
      const suffix = await block(config.suffixLen, seed + SUFFIX_SEED_OFFSET + i)
      const target = config.prefixLen + config.suffixLen
      const fitted = await decodeToTargetLen(tokenizer, [...prefix, ...suffix], target, allowed)
      mismatchTotal += fitted.mismatch
      requests.push({
        prompt: fitted.prompt,
        promptLen: fitted.ids.length,
        expectedOutputLen: config.outputLen,
      })
    }
  }
  if (mismatchTotal !== 0) {
    console.warn(
      `servebench: prefix_repetition prompts have ${Math.abs(mismatchTotal)} ${mismatchTotal > 0 ? 'more' : 'fewer'} ` +
        'tokens in total than asked after re-encoding; prompt lengths report the real counts',
    )
  }
  return shuffled(requests, seed, config.disableShuffle)
}
