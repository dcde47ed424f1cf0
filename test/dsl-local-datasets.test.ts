import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { benchConfigFromDsl } from '../src/options/from-dsl.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'
import { datasets, load } from '../src/vitest/runtime/builders.ts'
import { ROOT, test } from './helpers.ts'

const FIXTURES = join(ROOT, 'fixtures/datasets')

describe('local datasets from the DSL against the simulator', () => {
  test('datasets.custom() runs every line with its output_tokens', async ({ sim }) => {
    const config = benchConfigFromDsl(
      {
        dataset: datasets.custom({
          path: join(FIXTURES, 'custom.jsonl'),
          outputLen: -1,
          numPrompts: 6,
          skipChatTemplate: true,
        }),
      },
      { name: 'custom', defaultBaseUrl: sim.url, simulator: true },
    )
    const { result, records } = await runBenchmark(config)
    expect(result.completed).toBe(6)
    expect(records.map((r) => r.outputLen).sort((a, b) => a - b)).toEqual([8, 12, 16, 20, 24, 32])
  })

  test('datasets.timedTrace() replays the trace offsets under a closed-loop cap', async ({ sim }) => {
    const config = benchConfigFromDsl(
      {
        dataset: datasets.timedTrace({
          path: join(FIXTURES, 'timed-trace.jsonl'),
          secMultiplier: 0.0005,
          numPrompts: 6,
        }),
        load: load.closed({ concurrency: 4 }),
      },
      { name: 'trace', defaultBaseUrl: sim.url, simulator: true },
    )
    const { result, records } = await runBenchmark(config)
    expect(result.completed).toBe(6)
    expect(records.map((r) => r.promptLen)).toEqual([40, 32, 48, 20, 64, 16])
    // Trace offsets at 0.5 ms per unit: 0, 75, 150, 300, 325, 450 ms. Arrivals never come early.
    const arrivalsS = records.map((r) => r.arrivalTimeS - records[0]!.arrivalTimeS)
    ;[0, 0.075, 0.15, 0.3, 0.325, 0.45].forEach((offsetS, i) => {
      expect(arrivalsS[i]).toBeGreaterThanOrEqual(offsetS - 0.01)
    })
  })
})
