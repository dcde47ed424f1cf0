import type { PrefixCache } from './prefix-cache.ts'

// The KV cache as vLLM v1's block pool (vllm/v1/core/block_pool.py): a fixed number of blocks of
// `blockSize` tokens, reference-counted, with one free queue in eviction order. A freed block that
// holds a cached prefix stays findable until it reaches the head of the queue and is reused (LRU).

/** KV-cache figures of an engine, as `/metrics` exposes them. */
export interface SimCacheStats {
  /** `vllm:kv_cache_usage_perc`, 0–1. */
  kvCacheUsagePerc: number
  /** `vllm:num_preemptions_total`. */
  numPreemptions: number
  /** `vllm:prefix_cache_queries_total`, in tokens. */
  prefixCacheQueries: number
  /** `vllm:prefix_cache_hits_total`, in tokens. */
  prefixCacheHits: number
}

/** The blocks one sequence holds. */
export interface KvAllocation {
  /** Block ids in token order. */
  blocks: number[]
  /** Hashes of the prompt's full blocks, when prefix caching is on and the prompt's token ids are known. */
  hashes: number[] | undefined
  /** Leading blocks already in the prefix cache (taken from it, or registered after being computed). */
  registered: number
}

/** A fresh, empty allocation; `hashes` names the prompt's full blocks (see `blockHashes`). */
export function createKvAllocation(hashes: number[] | undefined): KvAllocation {
  return { blocks: [], hashes, registered: 0 }
}

const NONE = -1

/** A fixed pool of KV blocks shared by every sequence of one engine. */
export class KvCache {
  readonly numBlocks: number
  readonly blockSize: number
  /** Present when prefix caching is on. */
  readonly prefix: PrefixCache | undefined
  private readonly refCount: Int32Array
  /** The prefix hash a block holds, or NaN. */
  private readonly hashOf: Float64Array
  // The free queue, a doubly linked list over block ids: head is evicted first.
  private readonly prev: Int32Array
  private readonly next: Int32Array
  private head = NONE
  private tail = NONE
  private free = 0

  constructor(numBlocks: number, blockSize: number, prefix: PrefixCache | undefined) {
    this.numBlocks = numBlocks
    this.blockSize = blockSize
    this.prefix = prefix
    this.refCount = new Int32Array(numBlocks)
    this.hashOf = new Float64Array(numBlocks).fill(Number.NaN)
    this.prev = new Int32Array(numBlocks)
    this.next = new Int32Array(numBlocks)
    for (let id = 0; id < numBlocks; id++) this.append(id)
  }

  /** Blocks not held by any sequence (cached ones included, as vLLM counts them). */
  get freeBlocks(): number {
    return this.free
  }

  /** `vllm:kv_cache_usage_perc`: the fraction of blocks held by sequences, 0–1. */
  usage(): number {
    return 1 - this.free / this.numBlocks
  }

  /**
   * The cached blocks a sequence starting over with `targetTokens` to compute can reuse. At least
   * one token is always computed (it produces the next token), so a full hit is cut by one block.
   */
  matchPrefix(alloc: KvAllocation, targetTokens: number): number[] {
    if (!this.prefix || !alloc.hashes || targetTokens < 1) return []
    return this.prefix.match(alloc.hashes, Math.floor((targetTokens - 1) / this.blockSize))
  }

  /** Whether the `hit` blocks and new blocks up to `tokens` tokens fit in the free blocks now. */
  canAdmit(hit: readonly number[], tokens: number): boolean {
    let needed = Math.max(0, Math.ceil(tokens / this.blockSize) - hit.length)
    // A cached block nobody holds sits in the free queue: taking it uses up a free block too.
    for (const id of hit) if (this.refCount[id] === 0) needed++
    return needed <= this.free
  }

  /**
   * Gives a waiting sequence its cached prefix and blocks up to `tokens` tokens (check
   * {@link canAdmit} first), and counts the lookup: `targetTokens` queried, the prefix hit.
   */
  admit(alloc: KvAllocation, hit: readonly number[], tokens: number, targetTokens: number): void {
    for (const id of hit) this.touch(id)
    alloc.blocks = [...hit]
    alloc.registered = hit.length
    if (this.prefix) {
      this.prefix.queriedTokens += targetTokens
      this.prefix.hitTokens += hit.length * this.blockSize
    }
    this.grow(alloc, tokens)
  }

  /** Grows `alloc` to hold `tokens` tokens; false, taking nothing, when too few blocks are free. */
  grow(alloc: KvAllocation, tokens: number): boolean {
    const needed = Math.ceil(tokens / this.blockSize) - alloc.blocks.length
    if (needed <= 0) return true
    if (needed > this.free) return false
    for (let i = 0; i < needed; i++) alloc.blocks.push(this.takeFree())
    return true
  }

  /** Publishes the prompt blocks that are full and computed once `computedTokens` tokens are. */
  commit(alloc: KvAllocation, computedTokens: number): void {
    if (!this.prefix || !alloc.hashes) return
    const full = Math.min(
      alloc.hashes.length,
      Math.floor(computedTokens / this.blockSize),
      alloc.blocks.length,
    )
    for (let i = alloc.registered; i < full; i++) {
      const id = alloc.blocks[i]!
      const hash = alloc.hashes[i]!
      if (this.prefix.register(hash, id)) this.hashOf[id] = hash
    }
    if (full > alloc.registered) alloc.registered = full
  }

  /**
   * `POST /reset_prefix_cache`: no block is findable by its prefix any more. Blocks held by running
   * sequences keep their data; they are simply not reused by later requests.
   */
  resetPrefixCache(): void {
    if (!this.prefix) return
    this.prefix.clear()
    this.hashOf.fill(Number.NaN)
  }

  /** Returns a sequence's blocks; the last blocks go first in the queue, so they are evicted first. */
  release(alloc: KvAllocation): void {
    for (let i = alloc.blocks.length - 1; i >= 0; i--) {
      const id = alloc.blocks[i]!
      if (--this.refCount[id]! === 0) this.append(id)
    }
    alloc.blocks = []
    alloc.registered = 0
  }

  private takeFree(): number {
    const id = this.head
    this.unlink(id)
    const hash = this.hashOf[id]!
    if (!Number.isNaN(hash)) {
      this.prefix?.evict(hash, id)
      this.hashOf[id] = Number.NaN
    }
    this.refCount[id] = 1
    return id
  }

  private touch(id: number): void {
    if (this.refCount[id] === 0) this.unlink(id)
    this.refCount[id]!++
  }

  private append(id: number): void {
    this.prev[id] = this.tail
    this.next[id] = NONE
    if (this.tail === NONE) this.head = id
    else this.next[this.tail] = id
    this.tail = id
    this.free++
  }

  private unlink(id: number): void {
    const before = this.prev[id]!
    const after = this.next[id]!
    if (before === NONE) this.head = after
    else this.next[before] = after
    if (after === NONE) this.tail = before
    else this.prev[after] = before
    this.free--
  }
}
