import type { Tokenizer } from './index.ts'

/**
 * What a tokenizer promises when it lets callers re-encode only the end of a text (the random
 * dataset's fitting rounds). For such a tokenizer, with `text[at] === ' '` and `text[at - 1]` not
 * whitespace (JS `\s`), a split point of every pre-tokenizer it is enabled for:
 * - `encode(text)` is `encode(text.slice(0, at))` followed by `encode(text.slice(at))`;
 * - `decode` is byte-concatenative: the ids decode to the UTF-8 bytes their tokens stand for.
 * Why the split point holds: in the GPT-2, cl100k, o200k, Llama 3 and Qwen 2/3 split patterns a
 * space is only ever the first character of a piece or part of an all-whitespace piece, and no
 * lookahead reads past a non-whitespace character, so the pieces before `at` and after it are
 * the same whether the text goes on or stops there. NFC leaves a space boundary alone (no
 * composition involves U+0020). The tests check it against full encodes.
 * @internal
 */
export interface TextSplitting {
  /** UTF-8 bytes token `id` stands for; -1 for an added or special token (its text is not bytes). */
  byteLength(id: number): number
  /** Whether `encode(text)` covers exactly the UTF-8 bytes of `text` (no normaliser changes it). */
  keepsBytes(text: string): boolean
}

const splittings = new WeakMap<Tokenizer, TextSplitting>()

/** Marks `tokenizer` as splittable at spaces (see {@link TextSplitting}). @internal */
export function withTextSplitting<T extends Tokenizer>(tokenizer: T, splitting: TextSplitting): T {
  splittings.set(tokenizer, splitting)
  return tokenizer
}

/** The splitting promise of a loaded tokenizer; undefined when it makes none. @internal */
export function textSplitting(tokenizer: Tokenizer): TextSplitting | undefined {
  return splittings.get(tokenizer)
}
