import type { RandomDatasetConfig } from '../config/bench-config.ts'
import type { SampleRequest } from '../config/records.ts'
import { ConfigError, DatasetError } from '../errors.ts'
import { createRng } from '../rng.ts'
import { decodeToTargetLen } from './decode-to-target.ts'
import { type BuildPromptsOptions, buildRandomPrompts } from './generate-pool.ts'
import type { DatasetContext } from './index.ts'
import type { RandomPromptPlan } from './random-prompts.ts'
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
 * `prompt` holds their decoded text. Prompts are built on worker threads when the run is large
 * enough (see `buildRandomPrompts`); `options.threads` overrides that choice.
 */
export async function generateRandom(
  config: RandomDatasetConfig,
  context: DatasetContext,
  options: BuildPromptsOptions = {},
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
  // Every random value is drawn here, in the order one thread would draw it, so building the
  // prompts on workers gives the same requests for the same seed.
  const rng = createRng(seed)
  const inputLens = new Int32Array(numPrompts)
  const offsets = new Int32Array(numPrompts)
  const outputLens = new Int32Array(numPrompts)
  for (let i = 0; i < numPrompts; i++) {
    inputLens[i] = rng.int(inputLow, inputHigh)
    outputLens[i] = rng.int(outputLow, outputHigh)
    offsets[i] = rng.int(0, tokenizer.vocabSize - 1)
  }
  const plan: RandomPromptPlan = { prefix, inputLens, offsets, promptTokenIds: config.promptTokenIds }
  const built = await buildRandomPrompts(tokenizer, plan, options)
  const requests: SampleRequest[] = new Array(numPrompts)
  for (let i = 0; i < numPrompts; i++) {
    const request: SampleRequest = {
      prompt: built.prompts[i]!,
      promptLen: built.promptLens[i]!,
      expectedOutputLen: outputLens[i]!,
    }
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

// Rust: the prefix is fitted on its own first, so its text is the same at the start of every prompt.
async function buildPrefix(context: DatasetContext, prefixLen: number, allowed: number[]): Promise<number[]> {
  if (prefixLen <= 0) return []
  const rng = createRng(context.seed + PREFIX_SEED_OFFSET)
  const ids = Array.from({ length: prefixLen }, () => allowed[rng.int(0, allowed.length - 1)]!)
  return (await decodeToTargetLen(context.tokenizer, ids, prefixLen, allowed)).ids
}
