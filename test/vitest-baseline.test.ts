import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runVitest } from './vitest-helpers.ts'

// One baseline folder for the whole sequence: record, rerun, regress, update, CI.
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-baseline-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

// ITL 20 ms, and 26 ms for the 30% slower server: at the project's 5 ms, the few milliseconds a
// fresh Vitest worker's event loop stalls (client and simulator share it) moved mean TPOT by 10–25%
// between two runs of the same configuration.
const ITL_MS = '20'
const SLOWER_ITL_MS = '26'
const bench = (env: Record<string, string> = {}, extra: string[] = []) =>
  runVitest('slo', ['bench', '--run', 'baseline', ...extra], {
    SB_RESULT_DIR: join(dir, 'results'),
    SB_BASELINE_DIR: join(dir, 'baselines'),
    SB_ITL_MS: ITL_MS,
    ...env,
  })

describe('toMatchBaseline', () => {
  it('fails in CI when the baseline is missing', async () => {
    const run = await bench({ CI: '1' })
    expect(run.code).toBe(1)
    expect(run.output).toContain("Baseline missing: 'decode speed' has no baseline in")
  })

  it('writes the baseline when missing outside CI, with the configured runs, and says so', async () => {
    const run = await bench()
    expect(run.code).toBe(0)
    const file = JSON.parse(await readFile(join(dir, 'baselines', 'baseline.bench.ts.json'), 'utf8'))
    expect(Object.keys(file.benchmarks)).toEqual(['decode speed'])
    expect(file.version).toBe(2)
    // Recorded as -u records it (3 runs by default), never a one-run baseline it then meets itself.
    expect(file.benchmarks['decode speed'].runs).toHaveLength(3)
    expect(file.benchmarks['decode speed'].runs[0].samples.tpot).toHaveLength(24)
    expect(run.output).toContain(
      "servebench ⚠ baseline.bench.ts › decode speed: Baseline written: 'decode speed' (3 runs) in ",
    )
    expect(run.output).not.toContain('Baseline inconclusive')
  })

  it('does not flag a rerun of the unchanged configuration', async () => {
    const run = await bench()
    expect(run.output).not.toContain('Baseline regression')
    expect(run.code, run.output).toBe(0)
    const comment = await readFile(join(dir, 'results', 'servebench-pr-comment.md'), 'utf8')
    // Unchanged, a check passes or (on a noisy machine) stays undecided; it never fails.
    expect(comment).toMatch(
      /^<!-- servebench:pr-comment -->\n## servebench: (✅ all \d+ checks passed|❔ \d+ of \d+ checks inconclusive)\n/,
    )
    expect(comment).toMatch(
      /^\| baseline\.bench\.ts › decode speed \| `toMatchBaseline` \| mean TPOT \| [\d.]+ ms \| [\d.]+ ms \| [+-]\d+\.\d% \| [+-]\d+\.\d% … [+-]\d+\.\d% \| (✅ pass|❔ inconclusive \(~[\d,]+ requests\)) \|$/m,
    )
    expect(comment).not.toContain('❌')
  })

  it('catches a 30% slower inter-token latency with the change, its interval and p-value', async () => {
    const run = await bench({ SB_ITL_MS: SLOWER_ITL_MS, SB_HTML: '1' })
    expect(run.code, run.output).toBe(1)
    expect(run.output).toMatch(
      /Baseline regression: mean TPOT \+\d+\.\d% \(95% CI \+\d+\.\d% … \+\d+\.\d%, p[=<][\d.]+\).* past the 15% tolerance/,
    )
    // The PR comment keeps the numbers of the failed row; the report draws the baseline beside the run.
    const comment = await readFile(join(dir, 'results', 'servebench-pr-comment.md'), 'utf8')
    expect(comment).toMatch(/^## servebench: ❌ [1-9]\d* of \d+ checks failed$/m)
    expect(comment).toMatch(
      /^\| baseline\.bench\.ts › decode speed \| `toMatchBaseline` \| mean TPOT \| [\d.]+ ms \| [\d.]+ ms \| \+\d+\.\d% \| \+\d+\.\d% … \+\d+\.\d% \| ❌ fail \|$/m,
    )
    const html = await readFile(join(dir, 'results', 'servebench-report.html'), 'utf8')
    expect(html).toContain('"label":"ITL (baseline)"')
    expect(html).toContain('"label":"ITL (this run)"')
  })

  it('re-records with -u, after which the slower server is the new baseline', async () => {
    const update = await bench({ SB_ITL_MS: SLOWER_ITL_MS }, ['-u'])
    expect(update.code, update.output).toBe(0)
    const rerun = await bench({ SB_ITL_MS: SLOWER_ITL_MS })
    expect(rerun.code, rerun.output).toBe(0)
  })
})
