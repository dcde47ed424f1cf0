import { serveBench } from 'servebench'
import { describe, expect, test } from 'vitest'
import { small } from './workload.ts'

// Run with --bail=1: the failing test cancels the run while the benchmark is sending requests.
describe.concurrent('cancelled mid-run', () => {
  serveBench('long run', {
    ...small,
    dataset: { kind: 'random', inputLen: 16, outputLen: 64, numPrompts: 60 },
    load: { kind: 'closed', concurrency: 1 },
  })
  test('fails after a second', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect('bail').toBe('no bail')
  })
})
