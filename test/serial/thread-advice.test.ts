import { describe, expect } from 'vitest'
import { runBenchmark } from '../../src/runner/run-benchmark.ts'
import { configFrom, smallRunFlags } from '../faults/fault-helpers.ts'
import { test } from '../helpers.ts'
import { onQuietMachine } from './cpu-share.ts'

// Serial project: the client is starved on purpose, and how busy it was depends on the machine.
describe('a saturated run names the setting that would have kept up', () => {
  test('one thread kept 70% busy by a neighbour is told how many threads it needed', async ({
    sim,
    skip,
  }) => {
    const config = configFrom(
      smallRunFlags(sim.url, ['--num-prompts', '40', '--request-rate', '20', '--max-concurrency', '40']),
    )
    config.clientThreads = 1
    const lines: string[] = []
    // Blocks this thread 70 ms of every 100 ms, as a CPU-bound neighbour in the client would.
    const timer = setInterval(() => {
      const until = performance.now() + 70
      while (performance.now() < until) {
        // busy
      }
    }, 100)
    const { result: outcome, busy } = await onQuietMachine(async () => {
      try {
        return await runBenchmark(config, { log: (line) => lines.push(line) })
      } finally {
        clearInterval(timer)
      }
    })
    expect(outcome.result.completed).toBe(40)
    if (busy) return skip(busy)
    expect(outcome.clientHealth?.saturated).toBe(true)
    const advice = lines.filter((line) => line.startsWith('servebench: the client was saturated'))
    expect(advice).toHaveLength(1)
    expect(advice[0]).toMatch(
      /^servebench: the client was saturated with --client-threads 1 \(its busiest thread was busy \d+% of the run\); (--client-threads \d+ would have kept up|it needs about \d+ threads, more than the \d+ this machine's cores leave: send it from several processes or machines with --segment i\/n and servebench merge \(docs\/scaling-the-client\.md\))$/,
    )
  })
})
