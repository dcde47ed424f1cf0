import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { E2E_VITEST_MAJOR, runVitest } from './vitest-helpers.ts'

// Vitest 5's benchmark model. Skipped under this repository's Vitest 4; test/consumer/run.ts --e2e
// runs it against a Vitest 5 install of the packed servebench.
let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-v5-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe.skipIf(E2E_VITEST_MAJOR < 5)('Vitest 5 benchmark provider', () => {
  it("records a serveBench run in Vitest's benchmark table, and runs bench() functions beside it", async () => {
    const run = await runVitest('face', ['bench', '--run', 'vitest5-provider'], { SB_RESULT_DIR: dir })
    expect(run.code).toBe(0)
    // One table per test: the serveBench run has its 6 requests as samples.
    expect(run.output).toMatch(/^\s+name\s+hz\s+min\s+max\s+mean\s+p75\s+p99\s+p995\s+p999\s+rme\s+samples$/m)
    expect(run.output).toMatch(/^\s+a serving benchmark in the table\s+[\d.]+(\s+[\d.]+){7}\s+±[\d.]+%\s+6$/m)
    expect(run.output).toMatch(/^\s+a function benchmark\s+[\d,.]+/m)
    const summary = JSON.parse(await readFile(join(dir, 'servebench-summary.json'), 'utf8'))
    expect(summary.benchmarks).toEqual([
      expect.objectContaining({ name: 'a serving benchmark in the table', state: 'passed', verdict: 'pass' }),
    ])
  })
})
