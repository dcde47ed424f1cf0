import type { Tokenizer } from '../tokenizer/index.ts'
import { type TextSplitting, textSplitting } from '../tokenizer/splitting.ts'

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
 *
 * Speed: after the first round only the end of the text changes. When the tokenizer can be split
 * at a space (see `TextSplitting`), a round keeps the ids before the last such split point below
 * the cut and decodes and encodes only what follows it; the result is the same as a full round.
 */
export async function decodeToTargetLen(
  tokenizer: Tokenizer,
  ids: readonly number[],
  target: number,
  allowed: readonly number[],
  maxRounds: number = MAX_FIT_ROUNDS,
): Promise<FittedPrompt> {
  const splitting = textSplitting(tokenizer)
  let prompt = await tokenizer.decode(ids, { skipSpecialTokens: true })
  let encoded = await tokenizer.encode(prompt, { addSpecialTokens: false })
  // Whether `encoded` covers exactly the UTF-8 bytes of `prompt`, so byte offsets of ids are offsets in it.
  let bytesKept = splitting?.keepsBytes(prompt) ?? false
  for (let round = 1; ; round++) {
    const mismatch = encoded.length - target
    if (mismatch === 0 || round >= maxRounds) return { prompt, ids: encoded, mismatch }
    const next = encoded.slice(0, target)
    for (let j = next.length; j < target; j++) next.push(allowed[j % allowed.length]!)
    const cut =
      splitting !== undefined && bytesKept
        ? lastSplitPoint(prompt, encoded, Math.min(encoded.length, target), splitting)
        : undefined
    if (cut === undefined) {
      prompt = await tokenizer.decode(next, { skipSpecialTokens: true })
      encoded = await tokenizer.encode(prompt, { addSpecialTokens: false })
      bytesKept = splitting?.keepsBytes(prompt) ?? false
      continue
    }
    const tailIds = next.slice(cut.index)
    const tail = tailIds.length > 0 ? await tokenizer.decode(tailIds, { skipSpecialTokens: true }) : ''
    prompt = prompt.slice(0, cut.at) + tail
    next.length = cut.index
    if (tail !== '') for (const id of await tokenizer.encode(tail, { addSpecialTokens: false })) next.push(id)
    encoded = next
    // A space boundary joins two NFC texts into an NFC text.
    bytesKept = splitting!.keepsBytes(tail)
  }
}

interface SplitPoint {
  /** Ids before the split point. */
  index: number
  /** Its offset in the text (UTF-16 units). */
  at: number
}

const WHITESPACE = /\s/

/**
 * The last split point of `text` (a space after a non-whitespace character) where one of the
 * first `limit + 1` ids of `encoded` starts; undefined when there is none before an added token
 * (whose bytes are unknown).
 */
function lastSplitPoint(
  text: string,
  encoded: readonly number[],
  limit: number,
  splitting: TextSplitting,
): SplitPoint | undefined {
  let found: SplitPoint | undefined
  let byte = 0
  let at = 0
  let atByte = 0
  for (let index = 0; index <= limit && index < encoded.length; index++) {
    while (atByte < byte) {
      const code = text.charCodeAt(at)
      if (code < 0x80) atByte += 1
      else if (code < 0x800) atByte += 2
      else if (code >= 0xd800 && code < 0xdc00) {
        atByte += 4
        at++
      } else atByte += 3
      at++
    }
    if (atByte === byte && at > 0 && text.charCodeAt(at) === 0x20 && !WHITESPACE.test(text[at - 1]!))
      found = { index, at }
    const length = splitting.byteLength(encoded[index]!)
    if (length < 0) return found
    byte += length
  }
  return found
}
