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

// Longer pieces take the heap: the scan below is quadratic, and one piece of 256 KiB (a run of one
// letter) took 89 s; the heap takes well under a second. Shorter ones, nearly all, take the scan.
const HEAP_MERGE_MIN_BYTES = 128

// tiktoken's _byte_pair_merge: repeatedly merge the adjacent pair with the lowest rank (leftmost on ties).
function bytePairEncode(piece: string, rankOf: Map<string, number>): number[] {
  if (piece.length >= HEAP_MERGE_MIN_BYTES) return bytePairEncodeHeap(piece, rankOf)
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

/**
 * The same merge in O(n log n): the parts are a linked list (each part by its start), and a heap
 * holds each adjacent pair by (rank, start), so the lowest-ranked, leftmost pair is taken first as
 * in the scan. An entry whose part has changed since it was pushed is skipped when it comes up.
 */
function bytePairEncodeHeap(piece: string, rankOf: Map<string, number>): number[] {
  const n = piece.length
  // next[i]: the start of the part after the part that starts at i (n at the end); -1 once merged away.
  const next = new Int32Array(n + 1)
  const prev = new Int32Array(n + 1)
  const version = new Int32Array(n + 1)
  for (let i = 0; i <= n; i++) {
    next[i] = i + 1
    prev[i] = i - 1
  }
  const heap = new PairHeap()
  const pushPair = (i: number): void => {
    const j = next[i]!
    if (j >= n) return
    const rank = rankOf.get(piece.slice(i, next[j]!))
    if (rank !== undefined) heap.push(rank, i, version[i]!)
  }
  for (let i = 0; i < n - 1; i++) pushPair(i)
  while (heap.size > 0) {
    const { start, stamp } = heap.pop()
    if (next[start] === -1 || stamp !== version[start]) continue
    // Merge the part at `start` with the one after it.
    const gone = next[start]!
    next[start] = next[gone]!
    if (next[start]! <= n) prev[next[start]!] = start
    next[gone] = -1
    version[start]!++
    pushPair(start)
    const before = prev[start]!
    if (before >= 0) {
      version[before]!++
      pushPair(before)
    }
  }
  const out: number[] = []
  for (let i = 0; i < n; i = next[i]!) out.push(rankOf.get(piece.slice(i, next[i]!))!)
  return out
}

/** A binary min-heap of pairs by (rank, start): the leftmost of the lowest rank first. */
class PairHeap {
  private readonly ranks: number[] = []
  private readonly starts: number[] = []
  private readonly stamps: number[] = []

  get size(): number {
    return this.ranks.length
  }

  push(rank: number, start: number, stamp: number): void {
    const { ranks, starts, stamps } = this
    let i = ranks.length
    ranks.push(rank)
    starts.push(start)
    stamps.push(stamp)
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.less(i, parent)) break
      this.swap(i, parent)
      i = parent
    }
  }

  pop(): { start: number; stamp: number } {
    const { ranks, starts, stamps } = this
    const top = { start: starts[0]!, stamp: stamps[0]! }
    const last = ranks.length - 1
    this.swap(0, last)
    ranks.pop()
    starts.pop()
    stamps.pop()
    for (let i = 0; ; ) {
      const left = 2 * i + 1
      const right = left + 1
      let least = i
      if (left < ranks.length && this.less(left, least)) least = left
      if (right < ranks.length && this.less(right, least)) least = right
      if (least === i) break
      this.swap(i, least)
      i = least
    }
    return top
  }

  private less(a: number, b: number): boolean {
    const ra = this.ranks[a]!
    const rb = this.ranks[b]!
    return ra < rb || (ra === rb && this.starts[a]! < this.starts[b]!)
  }

  private swap(a: number, b: number): void {
    for (const list of [this.ranks, this.starts, this.stamps]) {
      const t = list[a]!
      list[a] = list[b]!
      list[b] = t
    }
  }
}

// UTF-8 bytes as a string of char codes 0–255; ASCII text is already that.
function toByteString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return Buffer.from(text, 'utf8').toString('latin1')
  }
  return text
}
