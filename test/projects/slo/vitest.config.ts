import { fileURLToPath } from 'node:url'
import { servebench } from 'servebench/vitest'
import { defineConfig } from 'vitest/config'

// Fixed-timing simulator (TTFT 20 ms, ITL 5 ms unless the test changes them), so bounds are predictable.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
    servebench({
      simulator: { ttftMs: Number(process.env.SB_TTFT_MS ?? 20), itlMs: Number(process.env.SB_ITL_MS ?? 5) },
      resultDir: process.env.SB_RESULT_DIR ?? 'servebench-results',
      baselineDir: process.env.SB_BASELINE_DIR ?? '__baselines__',
      // These suites test other things on a busy test machine: a starved client is noted, not
      // failed. slo-invalid.bench.ts sets clientCheck: 'fail' to test the check itself.
      verdicts: { clientCheck: 'warn' },
      reporters: {
        csv: process.env.SB_CSV === '1',
        html: process.env.SB_HTML === '1',
        history: process.env.SB_HISTORY ?? false,
        junit: process.env.SB_JUNIT ?? false,
      },
    }),
  ],
  test: { include: [process.env.SB_INCLUDE ?? '*.test.ts'] },
})
