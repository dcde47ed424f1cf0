import { fileURLToPath } from 'node:url'
import { servebench } from 'servebench/vitest'
import { defineConfig } from 'vitest/config'

// `npm run bench`: the example suites against the embedded simulator (no baseUrl, no
// SERVEBENCH_BASE_URL). Set SERVEBENCH_BASE_URL to point the same suites at a real server.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [servebench({ baselineDir: '__baselines__' })],
})
