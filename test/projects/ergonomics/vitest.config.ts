import { fileURLToPath } from 'node:url'
import { servebench } from 'servebench/vitest'
import { defineConfig } from 'vitest/config'

// Suite ergonomics: defaults from the plugin, dataset paths from the Vitest root (the parent test
// runs Vitest from the repository root, not from here).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
    servebench({
      simulator: { ttftMs: 2, itlMs: 1 },
      resultDir: process.env.SB_RESULT_DIR ?? 'servebench-results',
      endpoint: { backend: 'openai-chat', headers: { 'X-Suite': 'ergonomics' } },
      model: 'plugin-model',
      tokenizer: 'cl100k_base',
      // These suites test other things on a busy test machine: a starved client is noted, not
      // failed. A suite that tests the check itself sets clientCheck: 'fail'.
      verdicts: { clientCheck: 'warn' },
    }),
  ],
})
