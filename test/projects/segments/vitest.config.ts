import { fileURLToPath } from 'node:url'
import { servebench } from 'servebench/vitest'
import { defineConfig } from 'vitest/config'

// Execution segments in suites (test/vitest-segments.test.ts): SERVEBENCH_SEGMENT runs write
// segment files, SERVEBENCH_MERGE_SEGMENTS judges the merged ones. Fixed-timing simulator.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
    servebench({
      simulator: { ttftMs: 20, itlMs: 5 },
      resultDir: process.env.SB_RESULT_DIR ?? 'servebench-results',
      verdicts: { clientCheck: 'warn' },
    }),
  ],
})
