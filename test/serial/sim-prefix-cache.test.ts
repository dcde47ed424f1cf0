import { describe, expect, it } from 'vitest'
import { defaultBenchConfig } from '../../src/config/defaults.ts'
import { runBenchmark } from '../../src/runner/run-benchmark.ts'
import type { SimOptions } from '../../src/sim/options.ts'
import { startSimulator } from '../../src/sim/server.ts'

// The same prompt lengths, with and without a long shared prefix, through the real client. The
// simulator's prefill is made expensive so that skipping cached blocks shows in TTFT.
const SIM: SimOptions = { decodeBaseMs: 2, decodeMsPerSeq: 0, prefillMsPerToken: 0.04 }
const PREFIX = 1536
const INPUT = 32

async function meanTtftMs(sim: SimOptions, prefixLen: number, inputLen: number): Promise<number> {
  const server = await startSimulator(sim)
  try {
    const config = defaultBenchConfig()
    config.endpoint.baseUrl = server.url
    config.tokenizer.id = 'cl100k_base'
    config.dataset.prefixLen = prefixLen
    config.dataset.inputLen = inputLen
    config.dataset.outputLen = 4
    config.numPrompts = 12
    config.load.maxConcurrency = 2
    config.request.ignoreEos = true
    // Token ids, so the simulator's own tokenizing of long text (tens of ms) stays out of TTFT.
    config.dataset.promptTokenIds = true
    const { records } = await runBenchmark(config, { log: () => {} })
    expect(records.filter((r) => r.success)).toHaveLength(12)
    return (records.reduce((sum, r) => sum + r.ttftS, 0) / records.length) * 1000
  } finally {
    await server.close()
  }
}

describe('prefix caching through the client', () => {
  it('gives a prefix-heavy random workload a lower TTFT than the same lengths without a shared prefix', async () => {
    const shared = await meanTtftMs(SIM, PREFIX, INPUT)
    const unshared = await meanTtftMs(SIM, 0, PREFIX + INPUT)
    const cachingOff = await meanTtftMs({ ...SIM, enablePrefixCaching: false }, PREFIX, INPUT)
    // Uncached, ~1568 prompt tokens cost ≥ 60 ms of prefill; cached, only the first requests pay it.
    expect(unshared).toBeGreaterThan(55)
    expect(cachingOff).toBeGreaterThan(55)
    expect(shared).toBeLessThan(unshared / 2)
    expect(shared).toBeLessThan(cachingOff / 2)
  }, 60_000)
})
