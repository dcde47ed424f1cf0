import { createRng, type Rng } from '../rng.ts'
import type { SimTokenizer } from './options.ts'

// Common English words; each generated token is one of them with a leading space, so the
// generated text reads like prose and re-tokenizes to about one token per word.
const WORDS =
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they ' +
  'you were her she there one all we their has been would will if more when can who so no time other some what ' +
  'only into them could then first new these two may any like now my over such our man me even most made after ' +
  'also did many before must through back where much your way well down should because each just those people ' +
  'how too little state good very make world still own see men work long get here between both life being under ' +
  'never day same another know while last might us great old year off come since against go came right used take ' +
  'three small large next early young important few public bad same able light model token server stream batch ' +
  'river stone cloud green quiet north south east west garden window letter number system water paper music'

/** Draws pseudo-words for generated tokens, each a single token under the simulator's tokenizer. */
export interface WordSource {
  /** A per-request generator: the same seed and key (prompt) give the same words. */
  rng(key: string): Rng
  /** One token's text. */
  next(rng: Rng): string
}

/** Keeps the words that encode to exactly one token, so usage counts and re-tokenized text agree. */
export function createWordSource(tokenizer: SimTokenizer, seed: number): WordSource {
  const all = [...new Set(WORDS.split(' '))].map((w) => ` ${w}`)
  const single = all.filter((w) => tokenizer.encode(w).length === 1)
  // A custom tokenizer may split every word; the text is then longer than the count, which is still valid.
  const words = single.length >= 16 ? single : all
  return {
    rng: (key) => createRng((seed ^ hashString(key)) >>> 0),
    next: (rng) => words[Math.floor(rng.next() * words.length)]!,
  }
}

/** FNV-1a over UTF-16 code units; enough to spread prompts over seeds. */
function hashString(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}
