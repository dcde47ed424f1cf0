import type { Tokenizer } from '../../tokenizer/index.ts'
import { decodeToTargetLen } from '../decode-to-target.ts'

/**
 * Everything needed to build the prompts of a random dataset, drawn up front on the main thread
 * so that any split of the work gives the same prompts as one thread. Plain data: it is posted
 * to worker threads.
 */
export interface RandomPromptPlan {
  /** The shared prefix, already fitted (its ids re-encode to themselves). */
  prefix: number[]
  /** Per request: the drawn number of tokens after the prefix. */
  inputLens: Int32Array
  /** Per request: the drawn vocabulary offset. */
  offsets: Int32Array
  /** Keep the token ids (`--prompt-token-ids`) instead of fitting the text. */
  promptTokenIds: boolean
  /** Per request: how many tokens of the prefix it starts with (`cache-hit.ts`); absent = all. */
  cachedLens?: Int32Array
}

/** One built prompt. */
export interface RandomPrompt {
  prompt: string
  promptLen: number
  /** Only with `promptTokenIds`. */
  ids?: number[]
  /** `encode(prompt).length − drawn length`: 0 unless the fitting rounds ran out. */
  mismatch: number
}

/**
 * Builds prompt `index` of a plan: the prefix followed by `allowed[(offset + index + j) % |allowed|]`
 * (Rust's sequence), then decoded and re-encoded until its length is the drawn one. The result
 * depends only on the plan, the index and the tokenizer, so workers and the main thread agree.
 */
export async function buildRandomPrompt(
  tokenizer: Tokenizer,
  allowed: readonly number[],
  plan: RandomPromptPlan,
  index: number,
): Promise<RandomPrompt> {
  const inputLen = plan.inputLens[index]!
  const offset = plan.offsets[index]!
  const ids = plan.prefix.slice(0, plan.cachedLens?.[index] ?? plan.prefix.length)
  for (let j = 0; j < inputLen; j++) ids.push(allowed[(offset + index + j) % allowed.length]!)
  if (plan.promptTokenIds) {
    const prompt = await tokenizer.decode(ids, { skipSpecialTokens: true })
    return { prompt, promptLen: ids.length, ids, mismatch: 0 }
  }
  const fitted = await decodeToTargetLen(tokenizer, ids, ids.length, allowed)
  return { prompt: fitted.prompt, promptLen: fitted.ids.length, mismatch: fitted.mismatch }
}
