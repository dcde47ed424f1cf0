import type { TiktokenBPE } from 'js-tiktoken/lite'
import { escapeRegExp } from '../regexp.ts'
import type { Tokenizer } from './index.ts'
import { withTextSplitting } from './splitting.ts'

/** Built-in tiktoken encodings, loaded offline from the ranks that `js-tiktoken` ships. */
export type TiktokenEncodingName =
  | 'cl100k_base'
  | 'o200k_base'
  | 'p50k_base'
  | 'p50k_edit'
  | 'r50k_base'
  | 'gpt2'

const RANK_LOADERS: Record<TiktokenEncodingName, () => Promise<{ default: TiktokenBPE }>> = {
  cl100k_base: () => import('js-tiktoken/ranks/cl100k_base'),
  o200k_base: () => import('js-tiktoken/ranks/o200k_base'),
  p50k_base: () => import('js-tiktoken/ranks/p50k_base'),
  p50k_edit: () => import('js-tiktoken/ranks/p50k_edit'),
  r50k_base: () => import('js-tiktoken/ranks/r50k_base'),
  gpt2: () => import('js-tiktoken/ranks/gpt2'),
}

/** The names `--tokenizer` accepts for built-in encodings. */
export const TIKTOKEN_ENCODINGS: readonly TiktokenEncodingName[] = Object.keys(
  RANK_LOADERS,
) as TiktokenEncodingName[]

export function isTiktokenEncoding(id: string): id is TiktokenEncodingName {
  return Object.hasOwn(RANK_LOADERS, id)
}

/**
 * A tokenizer for a built-in tiktoken encoding. Encoding allows every special token (Rust: the
 * same), decoding is lossy UTF-8, and `numSpecialTokens` is 0.
 */
export async function loadTiktoken(name: TiktokenEncodingName): Promise<Tokenizer> {
  const ranks = (await RANK_LOADERS[name]()).default
  const bpe = createTiktokenBpe(ranks)
  const specialIds = new Set(Object.values(ranks.special_tokens))
  const allowed = bpe.rankIds.filter((id) => !specialIds.has(id))
  const tokenizer: Tokenizer = {
    id: name,
    kind: 'tiktoken',
    vocabSize: bpe.vocabSize,
    numSpecialTokens: 0,
    encode: async (text) => bpe.encode(text),
    decode: async (ids, options) => bpe.decode(ids, options?.skipSpecialTokens ?? true),
    allowedTokenIds: () => allowed.slice(),
  }
  // Every built-in split pattern (GPT-2's, cl100k's, o200k's) starts a piece at a space after a non-space.
  return withTextSplitting(tokenizer, { byteLength: bpe.byteLength, keepsBytes: () => true })
}

const MERGE_CACHE_SIZE = 100_000

interface TiktokenBpe {
  vocabSize: number
  /** Non-special ids, ascending. */
  rankIds: number[]
  encode(text: string): number[]
  decode(ids: readonly number[], skipSpecial: boolean): string
  /** UTF-8 bytes of a ranked id; -1 for a special or unknown id. */
  byteLength(id: number): number
}

// Deviation: our own byte-pair merge instead of js-tiktoken's `encode`, which keys its rank map by
// `bytes.join(',')` and spends ~8 ms per 1024-token prompt there; byte strings as keys (latin1,
// one char per byte) are ~10x faster on the random-dataset hot path. The ranks and the split
// pattern are js-tiktoken's, and a test checks both encoders agree.
function createTiktokenBpe(ranks: TiktokenBPE): TiktokenBpe {
  const rankOf = new Map<string, number>()
  const bytesOf: string[] = []
  for (const line of ranks.bpe_ranks.split('\n')) {
    if (line === '') continue
    const fields = line.split(' ')
    const offset = Number.parseInt(fields[1]!, 10)
    for (let i = 2; i < fields.length; i++) {
      // atob gives the bytes as a latin1 string directly, 2.5x faster here than Buffer.from + toString.
      const key = atob(fields[i]!)
      rankOf.set(key, offset + i - 2)
      bytesOf[offset + i - 2] = key
    }
  }
  const specialOf = new Map(Object.entries(ranks.special_tokens))
  const specialText = new Map<number, string>()
  for (const [text, id] of specialOf) specialText.set(id, Buffer.from(text, 'utf8').toString('latin1'))
  const specialPattern =
    specialOf.size > 0 ? new RegExp([...specialOf.keys()].map(escapeRegExp).join('|'), 'g') : undefined
  const piecePattern = new RegExp(ranks.pat_str, 'gu')
  const rankIds: number[] = []
  for (let id = 0; id < bytesOf.length; id++) if (bytesOf[id] !== undefined) rankIds.push(id)
  const vocabSize = Math.max(bytesOf.length, ...[...specialOf.values()].map((id) => id + 1))
  const decoder = new TextDecoder('utf-8')

  // Merged pieces, kept because the random dataset re-encodes nearly the same text in each round.
  const merged = new Map<string, number[]>()
  const encodeOrdinary = (text: string, out: number[]): void => {
    for (const match of text.matchAll(piecePattern)) {
      const piece = toByteString(match[0])
      const rank = rankOf.get(piece)
      if (rank !== undefined) {
        out.push(rank)
        continue
      }
      let ids = merged.get(piece)
      if (ids === undefined) {
        ids = bytePairEncode(piece, rankOf)
        if (merged.size >= MERGE_CACHE_SIZE) merged.clear()
        merged.set(piece, ids)
      }
      for (const id of ids) out.push(id)
    }
  }

  return {
    vocabSize,
    rankIds,
    encode(text) {
      const out: number[] = []
      if (specialPattern === undefined) {
        encodeOrdinary(text, out)
        return out
      }
      let start = 0
      for (const match of text.matchAll(specialPattern)) {
        encodeOrdinary(text.slice(start, match.index), out)
        out.push(specialOf.get(match[0])!)
        start = match.index + match[0].length
      }
      encodeOrdinary(text.slice(start), out)
      return out
    },
    byteLength: (id) => bytesOf[id]?.length ?? -1,
    decode(ids, skipSpecial) {
      let bytes = ''
      for (const id of ids) {
        const piece = bytesOf[id] ?? (skipSpecial ? undefined : specialText.get(id))
        if (piece !== undefined) bytes += piece
      }
      return decoder.decode(Buffer.from(bytes, 'latin1'))
    },
  }
}

// tiktoken's _byte_pair_merge: repeatedly merge the adjacent pair with the lowest rank (leftmost on ties).
function bytePairEncode(piece: string, rankOf: Map<string, number>): number[] {
  const bounds: number[] = []
  for (let i = 0; i <= piece.length; i++) bounds.push(i)
  const pairRank = (i: number): number =>
    i + 2 < bounds.length ? (rankOf.get(piece.slice(bounds[i], bounds[i + 2])) ?? Infinity) : Infinity
  const ranks: number[] = []
  for (let i = 0; i < bounds.length - 1; i++) ranks.push(pairRank(i))
  for (;;) {
    let best = Infinity
    let at = -1
    for (let i = 0; i < ranks.length - 1; i++) {
      if (ranks[i]! < best) {
        best = ranks[i]!
        at = i
      }
    }
    if (at < 0) break
    bounds.splice(at + 1, 1)
    ranks.splice(at + 1, 1)
    ranks[at] = pairRank(at)
    if (at > 0) ranks[at - 1] = pairRank(at - 1)
  }
  const out: number[] = []
  for (let i = 0; i < bounds.length - 1; i++) out.push(rankOf.get(piece.slice(bounds[i], bounds[i + 1]))!)
  return out
}

// UTF-8 bytes as a string of char codes 0–255; ASCII text is already that.
function toByteString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return Buffer.from(text, 'utf8').toString('latin1')
  }
  return text
}
