import type { Tokenizer } from './index.ts'

/**
 * What a tokenizer promises when it lets callers re-encode only the end of a text (the random
 * dataset's fitting rounds). For such a tokenizer, and a text that its normaliser leaves as it is:
 * - at a split point `at` ({@link splitsBefore}), `encode(text)` is `encode(text.slice(0, at))`
 *   followed by `encode(text.slice(at))`;
 * - at a cut inside a run of letters ({@link cutsInsideLetterRun}) where one of the text's
 *   tokens starts, `encode(text.slice(0, at))` is the tokens before it;
 * - `decode` is byte-concatenative: the ids decode to the UTF-8 bytes their tokens stand for.
 *
 * Why split points hold: in the GPT-2, cl100k, o200k, Llama 3 and Qwen 2/3 split patterns a space
 * is only ever the first character of a piece or part of an all-whitespace piece; a piece that
 * holds a letter or digit ends with letters, digits, marks or a contraction (`'s`); and no
 * lookahead reads past a non-whitespace character. So the pieces before `at` and after it are the
 * same whether the text goes on or stops there. No character at a split point composes under NFC
 * with the one before it (those are marks and Hangul letters), so two NFC texts join into one.
 * Added tokens are matched before any splitting, so a split point may not fall inside their text
 * (see {@link SplitLimits.joins}).
 *
 * Why cuts inside a letter run hold: the run (other letters, `\p{Lo}`: CJK, kana, …) is one piece,
 * or one piece with a single character before it; cut short it is still one piece. Both BPE
 * implementations merge the pair of lowest rank first (leftmost on ties), and a pair across a
 * token boundary of the whole piece is never merged, so the merges on the left of it happen in
 * the same order without the right part. Both encode a piece that is itself a token as that
 * token (Llama 3's `ignore_merges`, tiktoken's look-up), which is why the cut piece must be
 * longer than any token. The tests check all of it against full encodes.
 * @internal
 */
export interface TextSplitting {
  /** UTF-8 bytes token `id` stands for; -1 for an added or special token (its text is not bytes). */
  byteLength(id: number): number
  /** Whether `encode(text)` covers exactly the UTF-8 bytes of `text` (no normaliser changes it). */
  keepsBytes(text: string): boolean
}

/** What a split depends on besides the text, per tokenizer. @internal */
export interface SplitLimits {
  /** Adjacent character pairs inside the text of an added or special token. */
  joins: ReadonlySet<string>
  /** UTF-8 bytes of the longest token. */
  maxTokenBytes: number
}

const splittings = new WeakMap<Tokenizer, TextSplitting>()
const limits = new WeakMap<TextSplitting, Promise<SplitLimits>>()

/** Marks `tokenizer` as splittable (see {@link TextSplitting}). @internal */
export function withTextSplitting<T extends Tokenizer>(tokenizer: T, splitting: TextSplitting): T {
  splittings.set(tokenizer, splitting)
  return tokenizer
}

/** The splitting promise of a loaded tokenizer; undefined when it makes none. @internal */
export function textSplitting(tokenizer: Tokenizer): TextSplitting | undefined {
  return splittings.get(tokenizer)
}

/** The {@link SplitLimits} of a splittable tokenizer, worked out once. @internal */
export function splitLimits(tokenizer: Tokenizer, splitting: TextSplitting): Promise<SplitLimits> {
  let found = limits.get(splitting)
  if (found === undefined) {
    found = findLimits(tokenizer, splitting)
    limits.set(splitting, found)
  }
  return found
}

async function findLimits(tokenizer: Tokenizer, splitting: TextSplitting): Promise<SplitLimits> {
  const joins = new Set<string>()
  let maxTokenBytes = 0
  for (let id = 0; id < tokenizer.vocabSize; id++) {
    const bytes = splitting.byteLength(id)
    if (bytes >= 0) {
      maxTokenBytes = Math.max(maxTokenBytes, bytes)
      continue
    }
    const chars = [...(await tokenizer.decode([id], { skipSpecialTokens: false }))]
    for (let i = 1; i < chars.length; i++) joins.add(chars[i - 1]! + chars[i]!)
  }
  return { joins, maxTokenBytes }
}

const WHITESPACE = /\s/
const WORD = /[\p{L}\p{N}]/u
// What may go on with a letter or digit piece (o200k: marks and `'s`), or compose with its end under NFC.
const CONTINUES_WORD = /[\p{L}\p{N}\p{M}']/u
const OTHER_LETTER = /\p{Lo}/u
const LETTER_MARK_OR_DIGIT = /[\p{L}\p{M}\p{N}]/u

/**
 * Whether `at` (0 < at < text.length, not inside a surrogate pair) is a split point of `text`: a
 * space after a non-whitespace character, or a letter or digit followed by a character that is
 * none of letter, digit, mark, apostrophe or byte order mark, unless that pair of characters
 * occurs in an added token's text. @internal
 */
export function splitsBefore(text: string, at: number, joins: ReadonlySet<string>): boolean {
  const right = text.codePointAt(at)!
  const left = charBefore(text, at)
  if (right === 0x20) return !WHITESPACE.test(left)
  // Decoders drop a byte order mark at the start of their text, so the tail must not start with one.
  if (right === 0xfeff) return false
  const rightChar = String.fromCodePoint(right)
  return WORD.test(left) && !CONTINUES_WORD.test(rightChar) && !joins.has(left + rightChar)
}

/**
 * Whether cutting `text` at `at` (not inside a surrogate pair) falls inside a run of other letters
 * (`\p{Lo}`) that starts the text or follows a character that is no letter, mark or digit, with
 * more than `maxTokenBytes` UTF-8 bytes of the run before the cut (see {@link TextSplitting}). @internal
 */
export function cutsInsideLetterRun(text: string, at: number, maxTokenBytes: number): boolean {
  if (at <= 0 || at >= text.length) return false
  if (!OTHER_LETTER.test(String.fromCodePoint(text.codePointAt(at)!))) return false
  let bytes = 0
  let start = at
  while (start > 0) {
    const char = charBefore(text, start)
    if (!OTHER_LETTER.test(char)) {
      if (LETTER_MARK_OR_DIGIT.test(char)) return false
      break
    }
    const code = char.codePointAt(0)!
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
    start -= char.length
  }
  return bytes > maxTokenBytes
}

function charBefore(text: string, at: number): string {
  const low = text.charCodeAt(at - 1)
  const high = at > 1 ? text.charCodeAt(at - 2) : 0
  const start = low >= 0xdc00 && low < 0xe000 && high >= 0xd800 && high < 0xdc00 ? at - 2 : at - 1
  return String.fromCodePoint(text.codePointAt(start)!)
}
