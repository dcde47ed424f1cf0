/**
 * Rust's bimodal prefix cache of the `random` dataset (`--random-cache-hit-fraction`,
 * `--random-cache-ratio`): a fraction of the prompts are warm and start with a share of their
 * length taken from one shared prefix, so they hit the server's prefix cache; the others share
 * nothing. "80% of the prompts have 95% of their input cached" is `0.8` and `0.95`.
 */
import type { Reader } from '../../config/resolve.ts'
import { ConfigError, type ConfigIssue, DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { type DatasetContext, flagRow } from '../dataset-module.ts'
import { RANDOM_PREFIX_LEN } from './lengths.ts'
import type { RandomDatasetConfig } from './random.ts'
import type { RandomPromptPlan } from './random-prompts.ts'
import { checkRangeRatio, inputBounds, outputBounds } from './range-ratio.ts'

export const CACHE_HIT_FRACTION = flagRow(
  '--random-cache-hit-fraction',
  'number',
  'random: share of prompts that are warm (start with the shared cached prefix); needs --random-cache-ratio and --prompt-token-ids; --random-input-len is then the whole prompt. 0 is off.',
  { default: '0.0', parity: 'rust' },
)
export const CACHE_RATIO = flagRow(
  '--random-cache-ratio',
  'number',
  "random: share of each warm prompt's length that is the shared cached prefix (with --random-cache-hit-fraction). 0 is off.",
  { default: '0.0', parity: 'rust' },
)

/**
 * Both flags, each in [0, 1]; undefined when the mode is off (neither flag above 0). Rust turns the
 * mode on only when both are above 0 and ignores `--random-prefix-len` then; servebench reports one
 * without the other, and a prefix length, as issues instead of ignoring them.
 */
export function readCacheHit(
  read: Reader,
  dataset: Pick<RandomDatasetConfig, 'promptTokenIds' | 'prefixLen'>,
  issues: ConfigIssue[],
): RandomDatasetConfig['cacheHit'] {
  const share = (name: string): number => {
    const value = read.number(name)
    if (value === undefined) return 0
    if (value >= 0 && value <= 1) return value
    issues.push({ path: name, message: `must be in [0, 1] (got ${value})` })
    return 0
  }
  const fraction = share(CACHE_HIT_FRACTION.name)
  const ratio = share(CACHE_RATIO.name)
  if (fraction === 0 && ratio === 0) return undefined
  if (ratio === 0) {
    issues.push({
      path: CACHE_RATIO.name,
      message: `must be > 0 with ${CACHE_HIT_FRACTION.name}: it is the share of each warm prompt that is cached`,
    })
  }
  if (fraction === 0) {
    issues.push({
      path: CACHE_HIT_FRACTION.name,
      message: `must be > 0 with ${CACHE_RATIO.name}: it is the share of prompts that are warm`,
    })
  }
  if (!dataset.promptTokenIds) {
    issues.push({
      path: CACHE_HIT_FRACTION.name,
      message:
        'needs --prompt-token-ids, so that warm prompts send identical token ids and hit the prefix cache',
    })
  }
  if (dataset.prefixLen > 0) {
    issues.push({
      path: RANDOM_PREFIX_LEN.name,
      message: `cannot be used with ${CACHE_HIT_FRACTION.name}: the cached prefix is ${CACHE_RATIO.name} of each warm prompt`,
    })
  }
  return { fraction, ratio }
}

/**
 * The plan of a bimodal run. Per request, from one generator seeded `seed`: the whole length L
 * from `random`'s input bounds, the output length, the vocabulary offset, then warm with
 * probability `fraction`. A warm prompt takes `min(round(L × ratio), L)` tokens of the shared
 * prefix (`ceil(max L × ratio)` tokens, drawn and fitted as `random`'s prefix), a cold one none; the rest of L is the
 * prompt's own sequence, as in `random`. Rust draws the output length and offset before L.
 */
export async function planCacheHitPrompts(
  config: RandomDatasetConfig & { cacheHit: NonNullable<RandomDatasetConfig['cacheHit']> },
  context: DatasetContext,
  buildPrefix: (prefixLen: number, allowed: number[]) => Promise<number[]>,
): Promise<{ plan: RandomPromptPlan; outputLens: Int32Array }> {
  const { tokenizer, numPrompts, seed } = context
  const { fraction, ratio } = config.cacheHit
  const range = checkRangeRatio(config.rangeRatio)
  const realInputLen = Math.max(0, config.inputLen - tokenizer.numSpecialTokens)
  const [inputLow, inputHigh] = inputBounds(realInputLen, range.input)
  const [outputLow, outputHigh] = outputBounds(config.outputLen, range.output)
  if (inputLow < 1) {
    throw new ConfigError([
      {
        path: '--random-input-len',
        message: `is too small: with ${tokenizer.numSpecialTokens} special tokens and --random-range-ratio ${range.input}, the shortest prompt has ${inputLow} tokens`,
      },
    ])
  }
  const allowed = tokenizer.allowedTokenIds()
  if (allowed.length === 0)
    throw new DatasetError(`random: tokenizer "${tokenizer.id}" has no usable token ids`)
  const prefix = await buildPrefix(Math.ceil(inputHigh * ratio), allowed)
  const rng = createRng(seed)
  const inputLens = new Int32Array(numPrompts)
  const offsets = new Int32Array(numPrompts)
  const outputLens = new Int32Array(numPrompts)
  const cachedLens = new Int32Array(numPrompts)
  for (let i = 0; i < numPrompts; i++) {
    const total = rng.int(inputLow, inputHigh)
    outputLens[i] = rng.int(outputLow, outputHigh)
    offsets[i] = rng.int(0, tokenizer.vocabSize - 1)
    const warm = rng.next() < fraction
    const cached = warm ? Math.min(Math.round(total * ratio), prefix.length, total) : 0
    cachedLens[i] = cached
    inputLens[i] = total - cached
  }
  return { plan: { prefix, inputLens, offsets, promptTokenIds: true, cachedLens }, outputLens }
}
