// Prefix caching after vLLM's (vllm/v1/core/kv_cache_utils.py, block_pool.py): every full block of
// prompt tokens is named by a hash chained over the blocks before it, so equal hashes mean equal
// prefixes, and a new request reuses the cached blocks of its longest such prefix.

/** Hashes of a prompt's full blocks, each chained over its predecessor; a partial last block has none. */
export function blockHashes(tokenIds: readonly number[], blockSize: number): number[] {
  const hashes: number[] = []
  // Two independent 32-bit FNV-1a lanes folded into 53 bits: a JS number, exact as a Map key.
  let parentA = 0x811c9dc5
  let parentB = 0x01000193
  const fullBlocks = Math.floor(tokenIds.length / blockSize)
  for (let block = 0; block < fullBlocks; block++) {
    let a = parentA ^ 0x9e3779b9
    let b = parentB ^ 0x85ebca6b
    a = mix(a, parentB)
    b = mix(b, parentA)
    const end = (block + 1) * blockSize
    for (let i = block * blockSize; i < end; i++) {
      const id = tokenIds[i]! | 0
      a = mix(a, id)
      b = mix(b, id ^ 0x5bd1e995)
    }
    parentA = a >>> 0
    parentB = b >>> 0
    hashes.push(parentA * 2 ** 21 + (parentB >>> 11))
  }
  return hashes
}

/**
 * The map from block hash to the block that holds it. Blocks stay in it while they are free
 * (reusable by a later request) until the block pool evicts them for new data.
 */
export class PrefixCache {
  private readonly blocks = new Map<number, number>()
  /** Prompt tokens looked up (`vllm:prefix_cache_queries_total`). */
  queriedTokens = 0
  /** Prompt tokens found cached (`vllm:prefix_cache_hits_total`). */
  hitTokens = 0

  /** The blocks of the longest cached prefix of `hashes`, at most `maxBlocks` of them. */
  match(hashes: readonly number[], maxBlocks: number): number[] {
    const found: number[] = []
    const limit = Math.min(hashes.length, maxBlocks)
    for (let i = 0; i < limit; i++) {
      const block = this.blocks.get(hashes[i]!)
      if (block === undefined) break
      found.push(block)
    }
    return found
  }

  /** Records that `block` now holds the data named `hash`; false when another block already does. */
  register(hash: number, block: number): boolean {
    if (this.blocks.has(hash)) return false
    this.blocks.set(hash, block)
    return true
  }

  /** Forgets `hash` when its block is reused for other data. */
  evict(hash: number, block: number): void {
    if (this.blocks.get(hash) === block) this.blocks.delete(hash)
  }

  /** Forgets every cached prefix (`POST /reset_prefix_cache`); the hit counters keep counting. */
  clear(): void {
    this.blocks.clear()
  }

  /** Cached blocks (free or in use). */
  get size(): number {
    return this.blocks.size
  }
}

function mix(hash: number, value: number): number {
  let h = hash
  h ^= value & 0xff
  h = Math.imul(h, 0x01000193)
  h ^= (value >>> 8) & 0xff
  h = Math.imul(h, 0x01000193)
  h ^= (value >>> 16) & 0xff
  h = Math.imul(h, 0x01000193)
  h ^= value >>> 24
  return Math.imul(h, 0x01000193)
}
