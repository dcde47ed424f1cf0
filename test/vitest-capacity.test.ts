import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { latestRunFolder, runVitest } from './vitest-helpers.ts'

// One baseline folder for the sequence: record, rerun unchanged, then a 20% slower simulator.
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-capacity-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

// A search at the slower setting probes low loads, which take longest: up to its budget of 1,600
// requests at about 20 req/s. The child gets room for that on a busy 2-core machine.
const bench = (env: Record<string, string> = {}) =>
  runVitest(
    'capacity',
    ['bench', '--run'],
    { SB_RESULT_DIR: join(dir, 'results'), SB_BASELINE_DIR: join(dir, 'baselines'), ...env },
    170_000,
  )

describe('serveBench.capacity', () => {
  it('finds the capacity, sustains the load and records its baseline', async () => {
    const run = await bench()
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain("Baseline written: 'decode capacity' (capacity ")
    const file = JSON.parse(await readFile(join(dir, 'baselines', 'capacity.bench.ts.json'), 'utf8'))
    const stored = file.benchmarks['decode capacity']
    expect(stored.runs).toEqual([])
    expect(stored.capacity).toMatchObject({
      vary: 'request-rate',
      unit: 'req/s',
      binding_slo: 'mean_tpot_ms:40',
    })
    expect(stored.capacity.lower).toBeGreaterThanOrEqual(24)
  }, 180_000)

  it('does not fail an unchanged rerun', async () => {
    const run = await bench()
    expect(run.output).not.toContain('Baseline regressed')
    expect(run.code, run.output).toBe(0)
    const summary = JSON.parse(
      await readFile(join(await latestRunFolder(join(dir, 'results')), 'servebench-summary.json'), 'utf8'),
    )
    const verdicts = summary.benchmarks[0].verdicts.map((v: { matcher: string; verdict: string }) => [
      v.matcher,
      v.verdict,
    ])
    expect(verdicts[0]).toEqual(['toSustain', 'pass'])
    expect(verdicts[1][0]).toBe('toMatchBaseline')
    expect(verdicts[1][1]).not.toBe('fail')
    // The search's file lies in the run folder, as `servebench capacity --save-result` writes it,
    // and the summary names it.
    const folder = await latestRunFolder(join(dir, 'results'))
    expect(summary.benchmarks[0].resultFile).toMatch(/capacity-decode-capacity\.capacity\.json$/)
    const capacity = JSON.parse(
      await readFile(join(dir, 'results', summary.benchmarks[0].resultFile), 'utf8'),
    )
    expect(capacity.servebench_kind).toBe('capacity')
    expect(capacity.capacity).toMatchObject({ vary: 'request-rate', binding_slo: 'mean_tpot_ms:40' })
    expect(capacity.probes.length).toBeGreaterThan(1)
    expect(folder).toContain(join(dir, 'results'))
  }, 180_000)

  it('fails, naming the check and its numbers, when the simulator is 20% slower', async () => {
    const run = await bench({ SB_SLOWER: '1.2' })
    expect(run.code, run.output).toBe(1)
    expect(run.output).toMatch(
      /Load not sustained: capacity [\d.]+ req\/s \(95% interval [\d.]+–[\d.]+ req\/s, binding mean_tpot_ms:40\) against 24 req\/s/,
    )
    expect(run.output).toMatch(
      /Baseline regressed: capacity [\d.]+ req\/s \[[\d.]+–[\d.]+\] vs baseline [\d.]+ req\/s \[[\d.]+–[\d.]+\]: −\d+\.\d% \(interval −\d+\.\d% to −\d+\.\d%\), tolerance −20%/,
    )
    const comment = await readFile(join(dir, 'results', 'servebench-pr-comment.md'), 'utf8')
    expect(comment).toMatch(/^## servebench: ❌ 2 of 2 checks failed$/m)
    expect(comment).toMatch(/\| capacity\.bench\.ts › decode capacity \| `toSustain` \| capacity \|/)
  }, 180_000)
})
