import { getEncoding } from 'js-tiktoken'
import type { SimTokenizer, SimTokenizerEncoding } from './options.ts'

const cache = new Map<SimTokenizerEncoding, SimTokenizer>()

/**
 * The default {@link SimTokenizer}: a js-tiktoken encoding, cached per process because
 * loading one takes a few hundred milliseconds. Special-token text is encoded as plain text.
 */
export function createTiktokenSimTokenizer(encoding: SimTokenizerEncoding): SimTokenizer {
  const cached = cache.get(encoding)
  if (cached) return cached
  const tiktoken = getEncoding(encoding)
  const tokenizer: SimTokenizer = {
    encode: (text) => tiktoken.encode(text, [], []),
    decode: (ids) => tiktoken.decode(ids),
  }
  cache.set(encoding, tokenizer)
  return tokenizer
}
