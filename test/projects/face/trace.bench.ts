import { fileURLToPath } from 'node:url'
import { datasets, endpoint, load, serveBench } from 'servebench'
import { expect } from 'vitest'

// Six rows stamped 0–900 ms: replayed at half speed they span 1.8 s (0.9 s unscaled), less a
// millisecond of timer slack on the first send.
const path = fileURLToPath(new URL('../../../fixtures/datasets/timed-trace.jsonl', import.meta.url))

serveBench(
  'trace at half speed',
  {
    endpoint: endpoint({ model: 'servebench/sim-model' }),
    dataset: datasets.timedTrace({ path, secMultiplier: 0.001 }),
    load: load.trace({ timeScale: 2, maxConcurrency: 4 }),
  },
  (result) => {
    expect(result.completed).toBe(6)
    const starts = result.start_times as number[]
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThan(1.7)
  },
)
