import { fileURLToPath } from 'node:url'
import { servebench } from 'servebench/vitest'
import { defineConfig } from 'vitest/config'

// Every dataset builder against the embedded fixed-timing simulator. The hf benchmark reads the
// fake hub the parent test starts (HF_ENDPOINT, SERVEBENCH_HF_DATASETS_SERVER, HF_HOME).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
    servebench({
      simulator: { ttftMs: 2, itlMs: 1 },
      resultDir: process.env.SB_RESULT_DIR ?? 'servebench-results',
      // These suites test other things on a busy test machine: a starved client is noted, not
      // failed. A suite that tests the check itself sets clientCheck: 'fail'.
      verdicts: { clientCheck: 'warn' },
    }),
  ],
})
