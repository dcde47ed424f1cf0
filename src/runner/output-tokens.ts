import type { Tokenizer } from '../tokenizer/index.ts'

/** Text encoded per call: whole words only, so the count equals encoding the text at once. */
export const SEGMENT_CHARS = 16_384

/**
 * Longest run of non-space characters encoded in one piece. A byte-pair merge costs the square of
 * its piece, and a hostile server can send one 256 KB "word" (56 s to count in one piece). No real
 * token is this long, so a cut here changes a count by at most one token per cut, and only for such
 * text.
 */
export const MAX_RUN_CHARS = 256

/**
 * Output tokens of a text without `usage` (Python: `len(tokenizer(text).input_ids)`), in time linear
 * in its length. The text is encoded in segments cut before a whitespace run (or inside a run longer
 * than {@link MAX_RUN_CHARS}), and the event loop gets a turn between segments, so a signal is
 * handled while a long text is counted.
 */
export async function countOutputTokens(text: string, tokenizer: Tokenizer): Promise<number> {
  if (text.length <= MAX_RUN_CHARS) return (await tokenizer.encode(text)).length
  let count = 0
  for (const segment of segmentsOf(text)) {
    count += (await tokenizer.encode(segment)).length
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  return count
}

/** The segments {@link countOutputTokens} encodes, in order; they join back to `text`. */
export function segmentsOf(text: string): string[] {
  const out: string[] = []
  let start = 0
  let runStart = -1
  for (let i = 0; i < text.length; i++) {
    const space = isSpace(text.charCodeAt(i))
    if (space) {
      // Before a whitespace run that follows a word: a boundary no tokenizer merges across. Not
      // before a line break: tiktoken's patterns join punctuation with the line breaks after it.
      const code = text.charCodeAt(i)
      if (runStart >= 0 && i - start >= SEGMENT_CHARS && code !== 0x0a && code !== 0x0d) {
        out.push(text.slice(start, i))
        start = i
      }
      runStart = -1
    } else if (runStart < 0) {
      runStart = i
    } else if (i - runStart >= MAX_RUN_CHARS && !isLowSurrogate(text.charCodeAt(i))) {
      out.push(text.slice(start, i))
      start = i
      runStart = i
    }
  }
  if (start < text.length) out.push(text.slice(start))
  return out
}

function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x3000
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}
