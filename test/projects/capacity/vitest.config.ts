import { fileURLToPath } from 'node:url'
import { servebench } from 'servebench/vitest'
import { defineConfig } from 'vitest/config'

// A decode-bound batching simulator: a step costs 20 ms plus 2 ms per running sequence, so with
// 8-token answers mean TPOT reaches 40 ms at 31 req/s (less the machine's own lag on each step).
// SB_SLOWER=1.2 makes every step 20% slower: the capacity under the same SLO drops to about 21 req/s.
const slower = Number(process.env.SB_SLOWER ?? 1)

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
    servebench({
      simulator: {
        decodeBaseMs: 20 * slower,
        decodeMsPerSeq: 2 * slower,
        prefillMsPerToken: 0.001,
        enablePrefixCaching: false,
      },
      resultDir: process.env.SB_RESULT_DIR ?? 'servebench-results',
      baselineDir: process.env.SB_BASELINE_DIR ?? '__baselines__',
      verdicts: { clientCheck: 'warn' },
    }),
  ],
  test: { include: ['*.bench.ts'] },
})
