import { endpoint, serveBench, startSimulator } from 'servebench'
import { afterAll, describe, expect, test } from 'vitest'
import { small } from './workload.ts'

// Run with --bail=1: the failing test cancels the run while the benchmark is sending requests.
// Its own simulator lets the failing test wait for the first finished request rather than for a
// fixed time, which a busy machine can spend before the benchmark has sent anything.
const sim = await startSimulator({ ttftMs: 20, itlMs: 5 })
afterAll(() => sim.close())

describe.concurrent('cancelled mid-run', () => {
  serveBench('long run', {
    ...small,
    endpoint: endpoint({ baseUrl: sim.url, model: 'servebench/sim-model' }),
    dataset: { kind: 'random', inputLen: 16, outputLen: 64, numPrompts: 60 },
    load: { kind: 'closed', concurrency: 1 },
  })
  // One request in flight: a second request received means the first one was read to its end.
  test('fails once the benchmark has finished a request', { timeout: 60_000 }, async () => {
    while (sim.stats().requestsReceived < 2) await new Promise((resolve) => setTimeout(resolve, 20))
    expect('bail').toBe('no bail')
  })
})
