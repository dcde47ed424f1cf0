import type { Tokenizer } from '../tokenizer/index.ts'
import {
  cutsInsideLetterRun,
  type SplitLimits,
  splitLimits,
  splitsBefore,
  type TextSplitting,
  textSplitting,
} from '../tokenizer/splitting.ts'

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
 * (see `TextSplitting`), a round keeps the ids before the last split point below the cut and
 * decodes and encodes only what follows it; the result is the same as a full round. When a
 * normaliser changed the text, the ids stand for their own decoded text, which a full round
 * would start from too, so one decode (a few percent of an encode) stands in for the re-encode.
 */
export async function decodeToTargetLen(
  tokenizer: Tokenizer,
  ids: readonly number[],
  target: number,
  allowed: readonly number[],
  maxRounds: number = MAX_FIT_ROUNDS,
): Promise<FittedPrompt> {
  const splitting = textSplitting(tokenizer)
  const limits = splitting === undefined ? undefined : await splitLimits(tokenizer, splitting)
  let prompt = await tokenizer.decode(ids, { skipSpecialTokens: true })
  // The text whose UTF-8 bytes `encoded` stands for, once known (`prompt` unless a normaliser changed it).
  let covered = stableText(prompt, splitting)
  const first =
    covered !== undefined && maxRounds > 1
      ? await encodeEnough(tokenizer, covered, Math.min(1, (0.95 * target) / ids.length), target, limits!)
      : { encoded: await tokenizer.encode(prompt, { addSpecialTokens: false }) }
  let encoded = first.encoded
  // Where the first round's ids stop when they do not cover the whole text (which then has more).
  let end = first.end
  for (let round = 1; ; round++) {
    const mismatch = encoded.length - target
    if ((mismatch === 0 && end === undefined) || round >= maxRounds) return { prompt, ids: encoded, mismatch }
    const next = encoded.slice(0, target)
    for (let j = next.length; j < target; j++) next.push(allowed[j % allowed.length]!)
    let cut: SplitPoint | undefined = end !== undefined && end.index === target ? end : undefined
    end = undefined
    if (cut === undefined && splitting !== undefined) {
      if (covered === undefined) covered = await decodedText(tokenizer, encoded, splitting)
      if (covered !== undefined) cut = lastSplitPoint(covered, encoded, target, splitting, limits!)
    }
    if (cut === undefined) {
      prompt = await tokenizer.decode(next, { skipSpecialTokens: true })
      encoded = await tokenizer.encode(prompt, { addSpecialTokens: false })
      covered = stableText(prompt, splitting)
      continue
    }
    const tailIds = next.slice(cut.index)
    const tail = tailIds.length > 0 ? await tokenizer.decode(tailIds, { skipSpecialTokens: true }) : ''
    // Byte-concatenative decoding: the full round's decode(next) is the covered text up to the cut, then the tail.
    prompt = covered!.slice(0, cut.at) + tail
    next.length = cut.index
    if (tail !== '') for (const id of await tokenizer.encode(tail, { addSpecialTokens: false })) next.push(id)
    encoded = next
    // A split point sits before a character that composes with nothing before it, so two NFC texts join into an NFC text.
    covered = splitting!.keepsBytes(tail) ? prompt : undefined
  }
}

/**
 * The first round's encode of a stable `text`, in parts cut at split points: the first part
 * about `share` of the text, each next one aimed at the ids still missing. Once the parts hold
 * `target` ids or more and text remains, the whole text has more than `target` and the next
 * round keeps only the first `target`, so the rest (the few percent by which re-encoded random
 * text outgrows its ids) is never encoded; `end` is then where the parts stop.
 */
async function encodeEnough(
  tokenizer: Tokenizer,
  text: string,
  share: number,
  target: number,
  limits: SplitLimits,
): Promise<{ encoded: number[]; end?: SplitPoint }> {
  const encoded: number[] = []
  let from = 0
  let goal = Math.floor(text.length * share)
  for (;;) {
    const at = nextSplitPoint(text, Math.max(goal, from + 1), limits.joins)
    for (const id of await tokenizer.encode(text.slice(from, at), { addSpecialTokens: false }))
      encoded.push(id)
    if (at === text.length) return { encoded }
    if (encoded.length >= target) return { encoded, end: { index: encoded.length, at } }
    goal = at + Math.ceil(((target - encoded.length) * at) / Math.max(1, encoded.length))
    from = at
  }
}

// The first split point at or after `from`; the end of the text if there is none.
function nextSplitPoint(text: string, from: number, joins: ReadonlySet<string>): number {
  for (let at = Math.max(1, from); at < text.length; at++) {
    const code = text.charCodeAt(at)
    if (code >= 0xdc00 && code < 0xe000) continue
    if (splitsBefore(text, at, joins)) return at
  }
  return text.length
}

// `encode(prompt)` encodes the normalised text, and byte-concatenative decoding gives that text
// back, unless it holds added tokens (skipped) or starts with a byte order mark (dropped):
// undefined then, or if the text is still not stable.
async function decodedText(
  tokenizer: Tokenizer,
  encoded: readonly number[],
  splitting: TextSplitting,
): Promise<string | undefined> {
  let bytes = 0
  for (const id of encoded) {
    const length = splitting.byteLength(id)
    if (length < 0) return undefined
    bytes += length
  }
  const text = await tokenizer.decode(encoded, { skipSpecialTokens: true })
  return Buffer.byteLength(text, 'utf8') === bytes ? stableText(text, splitting) : undefined
}

// A text whose ids stand for its bytes, and which a decode of its ids gives back whole (a decoder
// drops a byte order mark at the start).
function stableText(text: string, splitting: TextSplitting | undefined): string | undefined {
  return splitting?.keepsBytes(text) && text.charCodeAt(0) !== 0xfeff ? text : undefined
}

interface SplitPoint {
  /** Ids before the split point. */
  index: number
  /** Its offset in the text (UTF-16 units). */
  at: number
}

/**
 * Where a round may keep the ids before and re-encode only what follows: the last split point of
 * `text` where one of the first `min(|encoded|, target) + 1` ids of `encoded` starts, or, when the
 * round truncates, the cut itself if it falls inside a long run of letters (see `TextSplitting`).
 * Undefined when there is none before an added token (whose bytes are unknown).
 */
function lastSplitPoint(
  text: string,
  encoded: readonly number[],
  target: number,
  splitting: TextSplitting,
  limits: SplitLimits,
): SplitPoint | undefined {
  const limit = Math.min(encoded.length, target)
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
    if (atByte === byte && at > 0) {
      if (splitsBefore(text, at, limits.joins)) found = { index, at }
      else if (
        index === target &&
        cutsInsideLetterRun(text, at, limits.maxTokenBytes) &&
        splitting.keepsBytes(text.slice(0, at))
      )
        return { index, at }
    }
    const length = splitting.byteLength(encoded[index]!)
    if (length < 0) return found
    byte += length
  }
  return found
}
