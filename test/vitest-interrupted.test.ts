import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { validateResultFile } from '../src/report/result/schema/index.ts'
import { latestRunFolder, runVitest } from './vitest-helpers.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-face-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('the Vitest face on cancelled and trace-driven runs', () => {
  it('a run cancelled mid-benchmark (--bail) still writes what was measured', async () => {
    const results = join(dir, 'results')
    const run = await runVitest('face', ['run', '--bail=1'], {
      SB_INCLUDE: 'interrupted.test.ts',
      SB_RESULT_DIR: results,
    })
    expect(run.code).toBe(1)
    const summary = JSON.parse(await readFile(join(results, 'servebench-summary.json'), 'utf8'))
    expect(summary.reason).toBe('interrupted')
    const [bench] = summary.benchmarks
    expect(bench.name).toBe('cancelled mid-run > long run')
    expect(bench.resultFile).toMatch(
      /^run-\d{8}-\d{6}\/interrupted-cancelled-mid-run-long-run-infqps-concurrency1-/,
    )
    // 60 requests of 64 tokens one at a time take seconds; the bail came after the first one.
    expect(bench.metrics.completed).toBeGreaterThan(0)
    expect(bench.metrics.completed).toBeLessThan(60)
    const result = JSON.parse(await readFile(join(results, bench.resultFile), 'utf8'))
    expect(validateResultFile(result)).toEqual({ valid: true })
    expect(result.interrupted).toBe(true)
    expect(run.output).toMatch(/servebench ↓ interrupted\.test\.ts › cancelled mid-run > long run {2}\d+ ok/)
  })

  it('load.trace() replays the trace at its timestamps, scaled', async () => {
    const results = join(dir, 'trace')
    const run = await runVitest('face', ['bench', '--run', 'trace'], { SB_RESULT_DIR: results })
    expect(run.output).toContain('servebench ✓ trace.bench.ts › trace at half speed  6 ok')
    expect(run.code).toBe(0)
    const files = await readdir(await latestRunFolder(results))
    expect(files.filter((f) => f.startsWith('trace-trace-at-half-speed-infqps-concurrency4-'))).toHaveLength(
      1,
    )
  })
})
