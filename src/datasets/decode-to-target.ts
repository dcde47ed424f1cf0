import type { Tokenizer } from '../tokenizer/index.ts'

/** Rounds of decode → encode before accepting a length that is still off. */
export const MAX_FIT_ROUNDS = 20

export interface FittedPrompt {
  /** The text; `encode(prompt)` (no special tokens) is exactly `ids`. */
  prompt: string
  ids: number[]
  /** `ids.length - target`: 0 unless the rounds ran out. */
  mismatch: number
}

/**
 * Turns token ids into a prompt whose re-encoded length is `target` (Python:
 * `gen_prompt_decode_to_target_len`; Rust: the same). Consecutive ids decode to text that may
 * re-encode to a different count (GPT-2: [6880, 6881] → " calls" "here" → 3 ids), so each round
 * decodes (skipping special tokens), re-encodes (adding none), and truncates or pads with
 * `allowed[(len + j) % |allowed|]` (Rust's padding; Python pads with random ids).
 * Deviation: after the last round the residual mismatch is returned, as Python does, instead of
 * Rust's error; the returned `ids` always match `prompt` exactly.
 */
export async function decodeToTargetLen(
  tokenizer: Tokenizer,
  ids: readonly number[],
  target: number,
  allowed: readonly number[],
  maxRounds: number = MAX_FIT_ROUNDS,
): Promise<FittedPrompt> {
  let current: readonly number[] = ids
  for (let round = 1; ; round++) {
    const prompt = await tokenizer.decode(current, { skipSpecialTokens: true })
    const encoded = await tokenizer.encode(prompt, { addSpecialTokens: false })
    const mismatch = encoded.length - target
    if (mismatch === 0 || round >= maxRounds) return { prompt, ids: encoded, mismatch }
    if (mismatch > 0) encoded.length = target
    else for (let j = encoded.length; j < target; j++) encoded.push(allowed[j % allowed.length]!)
    current = encoded
  }
}
