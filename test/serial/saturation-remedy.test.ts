import { describe, expect } from 'vitest'
import { runBenchmark } from '../../src/runner/run-benchmark.ts'
import { configFrom, smallRunFlags } from '../faults/fault-helpers.ts'
import { test } from '../helpers.ts'
import { onQuietMachine } from './cpu-share.ts'

// Serial project: the client is starved on purpose, and how busy it was depends on the machine.
describe('a saturated run names the setting that would have kept up', () => {
  test('one thread kept 70% busy by its own work is told how many threads it needed', async ({
    sim,
    skip,
  }) => {
    const config = configFrom(
      smallRunFlags(sim.url, ['--num-prompts', '40', '--request-rate', '20', '--max-concurrency', '40']),
    )
    config.clientThreads = 1
    // Blocks this thread 70 ms of every 100 ms, as a CPU-bound neighbour in the client would.
    const timer = setInterval(() => {
      const until = performance.now() + 70
      while (performance.now() < until) {
        // busy
      }
    }, 100)
    const { result: outcome, busy } = await onQuietMachine(async () => {
      try {
        return await runBenchmark(config)
      } finally {
        clearInterval(timer)
      }
    })
    expect(outcome.result.completed).toBe(40)
    if (busy) return skip(busy)
    expect(outcome.clientHealth?.saturated).toBe(true)
    // Its own work held the loop: the remedy is the threads that would have left it half idle, or
    // segments past the machine's cores, with the busy share it is scaled from.
    expect(outcome.clientHealth?.remedy).toMatch(
      /^(--client-threads \d+ \(read the streams on more cores: the busiest loop was busy \d+% of the run\)|a smaller concurrency per process \(--segment splits the run over processes or machines: it needs about \d+ threads, more than the \d+ this machine's cores leave\))/,
    )
  })
})
