import type { RandomDatasetConfig } from '../config/bench-config.ts'
import type { SampleRequest } from '../config/records.ts'
import { ConfigError, DatasetError } from '../errors.ts'
import { createRng } from '../rng.ts'
import { decodeToTargetLen } from './decode-to-target.ts'
import type { DatasetContext } from './index.ts'
import { checkRangeRatio, inputBounds, outputBounds } from './range-ratio.ts'

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
 * `prompt` holds their decoded text.
 */
export async function generateRandom(
  config: RandomDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const { tokenizer, numPrompts, seed } = context
  const ratio = checkRangeRatio(config.rangeRatio)
  const realInputLen = Math.max(0, config.inputLen - tokenizer.numSpecialTokens)
  const [inputLow, inputHigh] = inputBounds(realInputLen, ratio.input)
  const [outputLow, outputHigh] = outputBounds(config.outputLen, ratio.output)
  if (config.prefixLen + inputLow < 1) {
    throw new ConfigError([
      {
        path: '--random-input-len',
        message:
          `is too small: with ${tokenizer.numSpecialTokens} special tokens and --random-range-ratio ` +
          `${ratio.input}, the shortest prompt (prefix + sampled) has ${config.prefixLen + inputLow} tokens; ` +
          'raise --random-input-len or --random-prefix-len, or lower --random-range-ratio',
      },
    ])
  }
  const allowed = tokenizer.allowedTokenIds()
  if (allowed.length === 0)
    throw new DatasetError(`random: tokenizer "${tokenizer.id}" has no usable token ids`)

  const prefix = await buildPrefix(context, config.prefixLen, allowed)
  const rng = createRng(seed)
  const requests: SampleRequest[] = []
  let mismatchTotal = 0
  for (let i = 0; i < numPrompts; i++) {
    const inputLen = rng.int(inputLow, inputHigh)
    const expectedOutputLen = rng.int(outputLow, outputHigh)
    const offset = rng.int(0, tokenizer.vocabSize - 1)
    const ids = prefix.slice()
    for (let j = 0; j < inputLen; j++) ids.push(allowed[(offset + i + j) % allowed.length]!)
    if (config.promptTokenIds) {
      const prompt = await tokenizer.decode(ids, { skipSpecialTokens: true })
      requests.push({ prompt, promptTokenIds: ids, promptLen: ids.length, expectedOutputLen })
      continue
    }
    const fitted = await decodeToTargetLen(tokenizer, ids, ids.length, allowed)
    mismatchTotal += fitted.mismatch
    requests.push({ prompt: fitted.prompt, promptLen: fitted.ids.length, expectedOutputLen })
  }
  if (mismatchTotal !== 0) {
    console.warn(
      `servebench: random prompts have ${Math.abs(mismatchTotal)} ${mismatchTotal > 0 ? 'more' : 'fewer'} ` +
        'tokens in total than drawn after decoding and re-encoding; prompt lengths report the real counts',
    )
  }
  return requests
}

// Rust: the prefix is fitted on its own first, so its text is the same at the start of every prompt.
async function buildPrefix(context: DatasetContext, prefixLen: number, allowed: number[]): Promise<number[]> {
  if (prefixLen <= 0) return []
  const rng = createRng(context.seed + PREFIX_SEED_OFFSET)
  const ids = Array.from({ length: prefixLen }, () => allowed[rng.int(0, allowed.length - 1)]!)
  return (await decodeToTargetLen(context.tokenizer, ids, prefixLen, allowed)).ids
}
