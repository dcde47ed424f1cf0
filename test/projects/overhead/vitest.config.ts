import { fileURLToPath } from 'node:url'
import { servebench } from 'servebench/vitest'
import { defineConfig } from 'vitest/config'

// The overhead check: the same workload as `servebench serve` (see workload.bench.ts), against the
// server in SERVEBENCH_BASE_URL.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // A busy test machine may starve the client: noted, not failed.
  plugins: [
    servebench({
      resultDir: process.env.SB_RESULT_DIR ?? 'servebench-results',
      verdicts: { clientCheck: 'warn' },
    }),
  ],
})
