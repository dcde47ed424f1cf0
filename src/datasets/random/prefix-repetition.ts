import type { PrefixRepetitionDatasetConfig } from '../../config/bench-config.ts'
import type { SampleRequest } from '../../config/records.ts'
import { ConfigError, DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { decodeToTargetLen } from '../decode-to-target.ts'
import type { DatasetContext } from '../index.ts'
import { shuffled } from '../sampling.ts'

/** Rust seeds each prefix and each suffix apart, so one length does not move the other draws. */
const PREFIX_SEED_OFFSET = 0xf1f0
const SUFFIX_SEED_OFFSET = 0xbeef

/**
 * The `prefix_repetition` dataset (Python: `PrefixRepetitionRandomDataset`; Rust §4.8).
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
