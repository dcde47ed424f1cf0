import { performance } from 'node:perf_hooks'
import { afterEach, describe, expect, it } from 'vitest'
import { createEngine, type EngineSequence, type SimEngine } from './engine.ts'
import { resolveSimOptions, type SimOptions } from './options.ts'

const fakeTokenizer = () => ({ encode: () => [], decode: () => '' })

interface Run {
  seq: EngineSequence
  tokens: number
  firstTokenAtMs: number
  done: Promise<void>
}

let engine: SimEngine | undefined
afterEach(() => engine?.close())

function start(options: SimOptions): SimEngine {
  engine = createEngine(resolveSimOptions({ decodeBaseMs: 1, decodeMsPerSeq: 0, ...options }, fakeTokenizer))
  return engine
}

/** Submits a single-sequence request that ends after `outputTokens` tokens. */
function submit(
  target: SimEngine,
  promptTokenIds: number[],
  outputTokens: number,
  onToken: () => void = () => {},
): Run {
  let resolveDone: () => void = () => {}
  const run: Run = {
    seq: undefined as unknown as EngineSequence,
    tokens: 0,
    firstTokenAtMs: 0,
    done: new Promise((resolve) => {
      resolveDone = resolve
    }),
  }
  const submittedAtMs = performance.now()
  run.seq = {
    promptTokens: promptTokenIds.length,
    width: 1,
    promptTokenIds,
    onToken: () => {
      onToken()
      if (run.tokens === 0) run.firstTokenAtMs = performance.now() - submittedAtMs
      run.tokens++
      if (run.tokens < outputTokens) return false
      resolveDone()
      return true
    },
  }
  target.submit(run.seq, submittedAtMs)
  return run
}

const ids = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i)

describe('KV cache in the batching engine', () => {
  it('queues requests when the blocks run out and preempts the newest on decode growth', async () => {
    // 8 blocks of 4 tokens: four 6-token prompts take two blocks each and fill the cache.
    const sim = start({ numGpuBlocks: 8, blockSize: 4, maxModelLen: 32, enablePrefixCaching: false })
    const seen: string[] = []
    const sample = () => {
      seen.push(`${sim.runningCount()}/${sim.waitingCount()}/${sim.cacheStats().kvCacheUsagePerc}`)
    }
    const runs = Array.from({ length: 6 }, (_, i) => submit(sim, ids(i * 100, 6), 12, sample))
    await Promise.all(runs.map((r) => r.done))
    // Four running with the cache full and two waiting, as the engine saw it when tokens came out.
    expect(seen).toContain('4/2/1')
    // Every request still gets every token: preempted ones recompute and carry on.
    expect(runs.map((r) => r.tokens)).toEqual([12, 12, 12, 12, 12, 12])
    expect(sim.cacheStats().numPreemptions).toBeGreaterThan(0)
    expect(sim.cacheStats().kvCacheUsagePerc).toBe(0)
    expect(sim.runningCount()).toBe(0)
    expect(sim.waitingCount()).toBe(0)
  })

  it('runs a request that fits alone even though it is wider than what is free', async () => {
    const sim = start({ numGpuBlocks: 4, blockSize: 4, maxModelLen: 16, enablePrefixCaching: false })
    const run = submit(sim, ids(0, 10), 20)
    await run.done
    expect(run.tokens).toBe(20)
  })
})

describe('prefix caching in the batching engine', () => {
  const prefix = ids(1000, 2000)

  it('skips the prefill of a cached prefix: a lower TTFT and hits counted in tokens', async () => {
    const sim = start({ prefillMsPerToken: 0.02, blockSize: 16 })
    const first = submit(sim, [...prefix, ...ids(1, 20)], 2)
    await first.done
    const second = submit(sim, [...prefix, ...ids(5000, 20)], 2)
    await second.done
    const stats = sim.cacheStats()
    expect(stats.prefixCacheQueries).toBe(4040)
    expect(stats.prefixCacheHits).toBe(2000)
    // 2020 prefill tokens × 0.02 ms ≈ 40 ms against ≈ 0.4 ms for the 20 uncached tokens.
    expect(first.firstTokenAtMs).toBeGreaterThanOrEqual(40)
    expect(second.firstTokenAtMs).toBeLessThan(first.firstTokenAtMs / 2)
  })

  it('counts nothing and reuses nothing when prefix caching is off', async () => {
    const sim = start({ prefillMsPerToken: 0.02, enablePrefixCaching: false })
    const first = submit(sim, [...prefix, ...ids(1, 20)], 2)
    await first.done
    const second = submit(sim, [...prefix, ...ids(5000, 20)], 2)
    await second.done
    expect(sim.cacheStats().prefixCacheQueries).toBe(0)
    expect(sim.cacheStats().prefixCacheHits).toBe(0)
    expect(second.firstTokenAtMs).toBeGreaterThanOrEqual(40)
  })
})

describe('fixed timing', () => {
  it('after a stall, writes the rest of the stream one ITL apart instead of in a burst', async () => {
    const target = start({ ttftMs: 20, itlMs: 10 })
    const stampsMs: number[] = []
    const run = submit(target, ids(1, 4), 8, () => {
      stampsMs.push(performance.now())
      // The event loop is busy for six ITLs after the first token.
      if (stampsMs.length === 1) while (performance.now() - stampsMs[0]! < 60) {}
    })
    await run.done
    const gapsMs = stampsMs.slice(1).map((t, i) => t - stampsMs[i]!)
    expect(gapsMs[0]).toBeGreaterThanOrEqual(60)
    // Catching up would have written the tokens due during the stall back to back, microseconds
    // apart; half an ITL leaves room for a busy machine preempting the test between two stamps.
    for (const gap of gapsMs.slice(1)) expect(gap).toBeGreaterThanOrEqual(5)
  })
})
