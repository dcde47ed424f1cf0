import { fileURLToPath } from 'node:url'
import { servebench } from 'servebench/vitest'
import { defineConfig } from 'vitest/config'

// Fixed-timing simulator (TTFT 20 ms, ITL 5 ms); SB_TIMELINE=1 turns the timeline pages on,
// SB_DATASET_STATS=1 the dataset-statistics PNGs.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
    servebench({
      simulator: { ttftMs: 20, itlMs: 5 },
      resultDir: process.env.SB_RESULT_DIR ?? 'servebench-results',
      // These suites test other things on a busy test machine: a starved client is noted, not
      // failed. A suite that tests the check itself sets clientCheck: 'fail'.
      verdicts: { clientCheck: 'warn' },
      ...(process.env.SB_TIMELINE ? { timeline: { itlThresholdsMs: [1, 1000] } } : {}),
      ...(process.env.SB_DATASET_STATS ? { datasetStats: true } : {}),
    }),
  ],
  test: { include: [process.env.SB_INCLUDE ?? '*.test.ts'] },
})
