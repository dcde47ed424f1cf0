import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { runBenchmark } from '../../src/runner/run-benchmark.ts'
import { configFrom, smallRunFlags } from '../faults/fault-helpers.ts'
import { ROOT, readOnlyResult, runCli, test } from '../helpers.ts'
import { onQuietMachine } from './cpu-share.ts'

// Relations that only the wall clock can show, moved here from the e2e tests that check the same
// runs' requests and counts. A machine busy with other work skips the bounds (cpu-share.ts).
describe('timings that need a quiet machine', () => {
  test('timed_trace with --no-self-timed sends every request at once, not at the trace times', async ({
    sim,
    tmpDir,
    skip,
  }) => {
    const { result: run, busy } = await onQuietMachine(() =>
      runCli([
        'serve',
        '--base-url',
        sim.url,
        '--tokenizer',
        'cl100k_base',
        '--disable-tqdm',
        '--dataset-name',
        'timed_trace',
        '--dataset-path',
        join(ROOT, 'fixtures/datasets/timed-trace.jsonl'),
        '--timed-trace-sec-multiplier',
        '0.001',
        '--num-prompts',
        '6',
        '--no-self-timed',
        '--save-result',
        '--save-detailed',
        '--result-dir',
        tmpDir,
      ]),
    )
    expect(run.code, run.stderr).toBe(0)
    const result = (await readOnlyResult(tmpDir)) as { completed: number; start_times: number[] }
    expect(result.completed).toBe(6)
    if (busy) return skip(busy)
    // The trace spreads the six over 0.9 s; sent at once, they start within a fraction of that.
    const spanS = Math.max(...result.start_times) - Math.min(...result.start_times)
    expect(spanS).toBeLessThan(0.45)
  })

  test('one client thread, two and three measure the same medians, within the noise of a quiet machine', async ({
    sim,
    skip,
  }) => {
    const config = (threads: string) => {
      const config = configFrom(smallRunFlags(sim.url, ['--num-prompts', '24', '--client-threads', threads]))
      config.percentileMetrics = ['ttft', 'e2el']
      return config
    }
    const { result: runs, busy } = await onQuietMachine(async () => [
      await runBenchmark(config('1')),
      await runBenchmark(config('2')),
      await runBenchmark(config('3')),
    ])
    const [one, ...threaded] = runs.map((run) => run.result)
    expect([one!.completed, ...threaded.map((r) => r.completed)]).toEqual([24, 24, 24])
    if (busy) return skip(busy)
    // A clock offset between threads would show as seconds; the machine's noise is milliseconds.
    for (const many of threaded) {
      for (const key of ['median_ttft_ms', 'median_e2el_ms'] as const) {
        const [a, b] = [one![key] as number, many[key] as number]
        expect(Math.abs(b - a), key).toBeLessThan(Math.max(25, a / 2))
      }
    }
  })
})
