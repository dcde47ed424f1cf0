import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decodePng } from './png-decode.ts'
import { E2E_VITEST_MAJOR, latestRunFolder, runVitest } from './vitest-helpers.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-face-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function summaryOf(results: string): Promise<{
  reason: string
  benchmarks: Array<{ name: string; state: string; resultFile: string | null }>
}> {
  return JSON.parse(await readFile(join(results, 'servebench-summary.json'), 'utf8'))
}

describe('serveBench modifiers', () => {
  it('.todo, .skip, .skipIf and .runIf act as Vitest test modifiers; timeline and datasetStats write a page and a PNG per run', async () => {
    const results = join(dir, 'results')
    const run = await runVitest('face', ['run', 'modifiers'], {
      SB_INCLUDE: '*.bench.ts',
      SB_RESULT_DIR: results,
      SB_TIMELINE: '1',
      SB_DATASET_STATS: '1',
    })
    expect(run.code).toBe(0)
    expect(run.output).toMatch(/Tests {2}2 passed \| 3 skipped \| 1 todo \(6\)/)
    const summary = await summaryOf(results)
    expect(summary.benchmarks.map((b) => [b.name, b.state])).toEqual([
      ['skipped outright', 'skipped'],
      ['skipped by skipIf', 'skipped'],
      ['run by skipIf', 'passed'],
      ['skipped by runIf', 'skipped'],
      ['run by runIf', 'passed'],
    ])
    // One timeline page next to each result file, named after it.
    const runDir = await latestRunFolder(results)
    const files = (await readdir(runDir)).sort()
    const json = files.filter((f) => /^modifiers-run-by-.*\.json$/.test(f))
    expect(json).toHaveLength(2)
    expect(files.filter((f) => f.endsWith('.timeline.html'))).toEqual(
      json.map((f) => f.replace(/\.json$/, '.timeline.html')),
    )
    const page = await readFile(join(runDir, json[0]!.replace(/\.json$/, '.timeline.html')), 'utf8')
    expect(page).toContain('<h1>modifiers.bench.ts › run by runIf</h1>')
    expect(page.split('<rect class="ttft"').length - 1).toBe(6)
    // The project sets itlThresholdsMs [1, 1000].
    expect(page).toContain('1 ms ≤ ITL &lt; 1000 ms')
    // And one dataset-statistics PNG next to each result file.
    const pngs = files.filter((f) => f.endsWith('.dataset_stats.png'))
    expect(pngs).toEqual(json.map((f) => f.replace(/\.json$/, '.dataset_stats.png')))
    const png = decodePng(await readFile(join(runDir, pngs[0]!)))
    expect(png.chunks.every((c) => c.crcOk)).toBe(true)
    expect([png.width, png.height]).toEqual([1400, 1000])
  })

  it('.only runs only that benchmark, and fails the run under CI', async () => {
    const local = await runVitest('face', ['bench', '--run', 'only'], { SB_RESULT_DIR: join(dir, 'a') })
    expect(local.code).toBe(0)
    expect((await summaryOf(join(dir, 'a'))).benchmarks.map((b) => [b.name, b.state])).toEqual([
      ['the only one', 'passed'],
      ['left out by only', 'skipped'],
    ])

    const ci = await runVitest('face', ['bench', '--run', 'only'], {
      SB_RESULT_DIR: join(dir, 'b'),
      CI: 'true',
    })
    expect(ci.code).toBe(1)
    expect(ci.output).toContain(
      '[Vitest] Unexpected .only modifier. Remove it or pass --allowOnly argument to bypass this error',
    )
    expect((await summaryOf(join(dir, 'b'))).benchmarks[0]).toMatchObject({
      name: 'the only one',
      state: 'failed',
      resultFile: null,
    })
  })

  // Vitest 4 only: Vitest 5 has no top-level bench(), so such a file cannot be written there.
  it.skipIf(E2E_VITEST_MAJOR >= 5)(
    'refuses a file that mixes bench() and serveBench, naming the file',
    async () => {
      const run = await runVitest('face', ['bench', '--run', 'mixed'], { SB_RESULT_DIR: join(dir, 'c') })
      expect(run.code).toBe(1)
      expect(run.output).toMatch(
        /FAIL {2}mixed\.bench\.ts \[ mixed\.bench\.ts \]\nError: servebench: this file mixes serveBench\(\) and bench\(\); move the bench\(\) micro-benchmarks to their own file/,
      )
      // Nothing was sent.
      expect((await summaryOf(join(dir, 'c'))).benchmarks).toEqual([
        expect.objectContaining({ name: 'a serving benchmark', state: 'skipped', resultFile: null }),
      ])
    },
  )
})
