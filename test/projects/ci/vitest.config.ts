import { fileURLToPath } from 'node:url'
import { servebench } from 'servebench/vitest'
import { defineConfig } from 'vitest/config'

// Fixed-timing simulator (TTFT 20 ms, ITL 5 ms): a 1 ms TTFT bound always fails, a 60 s one holds.
// SB_JUNIT writes servebench's JUnit XML; SB_KEEP_RUNS sets how many run folders are kept.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
    servebench({
      simulator: { ttftMs: 20, itlMs: 5 },
      resultDir: process.env.SB_RESULT_DIR ?? 'servebench-results',
      // A starved client on a busy test machine is noted, not failed.
      verdicts: { clientCheck: 'warn' },
      reporters: {
        junit: process.env.SB_JUNIT ?? false,
        keepRuns: Number(process.env.SB_KEEP_RUNS ?? 10),
      },
    }),
  ],
  // The same suites under `vitest run` as under `vitest bench`.
  test: { include: ['*.bench.ts'] },
})
