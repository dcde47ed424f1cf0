import { describe, expect, it } from 'vitest'
import { createKvAllocation, KvCache } from './kv-cache.ts'
import { blockHashes, PrefixCache } from './prefix-cache.ts'

const ids = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i)

describe('blockHashes', () => {
  it('names full blocks only, chained: a shared prefix shares hashes, a change moves every later one', () => {
    const a = blockHashes([...ids(0, 8), ...ids(100, 5)], 4)
    const b = blockHashes([...ids(0, 8), ...ids(200, 4)], 4)
    expect(a).toHaveLength(3)
    expect(b).toHaveLength(3)
    expect(a.slice(0, 2)).toEqual(b.slice(0, 2))
    expect(a[2]).not.toBe(b[2])
    const c = blockHashes([99, ...ids(1, 7)], 4)
    expect(c[0]).not.toBe(a[0])
    expect(c[1]).not.toBe(a[1])
    expect(new Set(a).size).toBe(3)
    expect(blockHashes(ids(0, 3), 4)).toEqual([])
  })
})

describe('KvCache', () => {
  it('hands out and takes back blocks, and reports usage as a fraction', () => {
    const kv = new KvCache(4, 16, undefined)
    const a = createKvAllocation(undefined)
    expect(kv.canAdmit([], 33)).toBe(true)
    kv.admit(a, [], 33, 33)
    expect(a.blocks).toHaveLength(3)
    expect(kv.usage()).toBe(0.75)
    expect(kv.canAdmit([], 17)).toBe(false)
    expect(kv.grow(a, 48)).toBe(true)
    expect(a.blocks).toHaveLength(3)
    expect(kv.grow(a, 64)).toBe(true)
    expect(kv.grow(a, 65)).toBe(false)
    expect(a.blocks).toHaveLength(4)
    expect(kv.canAdmit([], 1)).toBe(false)
    kv.release(a)
    expect(kv.usage()).toBe(0)
    expect(kv.freeBlocks).toBe(4)
  })

  it('finds no cached prefix after resetPrefixCache, for freed and held blocks alike', () => {
    const prefix = new PrefixCache()
    const kv = new KvCache(16, 4, prefix)
    const prompt = ids(0, 10)
    const held = createKvAllocation(blockHashes(prompt, 4))
    kv.admit(held, [], 10, 10)
    kv.commit(held, 10)
    const freed = createKvAllocation(blockHashes(ids(50, 10), 4))
    kv.admit(freed, [], 10, 10)
    kv.commit(freed, 10)
    kv.release(freed)
    expect(prefix.size).toBe(4)
    expect(kv.matchPrefix(createKvAllocation(blockHashes(prompt, 4)), 10)).toHaveLength(2)

    kv.resetPrefixCache()
    expect(prefix.size).toBe(0)
    expect(kv.matchPrefix(createKvAllocation(blockHashes(prompt, 4)), 10)).toEqual([])
    expect(kv.matchPrefix(createKvAllocation(blockHashes(ids(50, 10), 4)), 10)).toEqual([])
    // The held blocks stay held; releasing them later needs no cached entry.
    kv.release(held)
    expect(kv.freeBlocks).toBe(16)
  })

  it('reuses the cached full blocks of an identical prompt and counts queried and hit tokens', () => {
    const prefix = new PrefixCache()
    const kv = new KvCache(16, 4, prefix)
    const prompt = ids(0, 10)
    const first = createKvAllocation(blockHashes(prompt, 4))
    expect(kv.matchPrefix(first, 10)).toEqual([])
    kv.admit(first, [], 10, 10)
    kv.commit(first, 10)
    expect(prefix.size).toBe(2)

    const second = createKvAllocation(blockHashes(prompt, 4))
    const hit = kv.matchPrefix(second, 10)
    expect(hit).toEqual(first.blocks.slice(0, 2))
    kv.admit(second, hit, 10, 10)
    // Two shared blocks plus one each for the partial blocks.
    expect(kv.freeBlocks).toBe(16 - 4)
    expect(prefix.queriedTokens).toBe(20)
    expect(prefix.hitTokens).toBe(8)
  })

  it('always leaves one token to compute: a fully cached prompt is cut by one block', () => {
    const kv = new KvCache(8, 4, new PrefixCache())
    const prompt = ids(0, 8)
    const first = createKvAllocation(blockHashes(prompt, 4))
    kv.admit(first, [], 8, 8)
    kv.commit(first, 8)
    expect(kv.matchPrefix(createKvAllocation(blockHashes(prompt, 4)), 8)).toHaveLength(1)
  })

  it('keeps freed cached blocks findable until they are needed, evicting the least recently freed, tail blocks first', () => {
    const prefix = new PrefixCache()
    const kv = new KvCache(4, 4, prefix)
    const promptA = ids(0, 8)
    const promptB = ids(50, 8)
    const a = createKvAllocation(blockHashes(promptA, 4))
    kv.admit(a, [], 8, 8)
    kv.commit(a, 8)
    kv.release(a)
    const b = createKvAllocation(blockHashes(promptB, 4))
    kv.admit(b, [], 8, 8)
    kv.commit(b, 8)
    kv.release(b)
    expect(prefix.size).toBe(4)
    expect(kv.usage()).toBe(0)
    // A hit on B's cached blocks takes them out of the free queue.
    const again = createKvAllocation(blockHashes(promptB, 4))
    const hit = kv.matchPrefix(again, 9)
    expect(hit).toHaveLength(2)
    expect(kv.canAdmit(hit, 12)).toBe(true)
    kv.admit(again, hit, 12, 9)
    // The new block is A's last one (A was freed first, its tail blocks ahead of its head);
    // A's first block is still cached, B's blocks are held again.
    expect(kv.matchPrefix(createKvAllocation(blockHashes(promptA, 4)), 9)).toHaveLength(1)
    expect(kv.freeBlocks).toBe(1)
    expect(kv.grow(again, 16)).toBe(true)
    expect(kv.grow(again, 17)).toBe(false)
  })
})
