import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from './helpers.ts'
import { latestRunFolder, REPO, runVitest } from './vitest-helpers.ts'

// test/projects/ci: pass.bench.ts holds its SLO, fail.bench.ts misses a 1 ms p99 TTFT bound. Each
// Vitest spawn costs seconds, so each test groups what one set of runs can show.
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-ci-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

interface Summary {
  reason: string
  benchmarks: Array<{
    file: string
    name: string
    state: string
    verdict: string | null
    resultFile: string | null
    verdicts: Array<{ matcher: string; pass: boolean; verdict: string }>
  }>
}

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, 'utf8')) as T

/** servebench's own `::error` lines, numbers masked (the timings vary from run to run). */
const errorAnnotations = (output: string): string[] =>
  output
    .split('\n')
    .filter((l) => l.startsWith('::error ') && l.includes('title=servebench'))
    .map((l) => l.replace(/\d+\.\d+/g, '<n>'))

/** What must be equal between an unsharded run and its merged shards: the benchmarks and verdicts. */
const verdictsOf = (s: Summary): unknown[] =>
  s.benchmarks
    .map((b) => ({
      file: b.file,
      name: b.name,
      state: b.state,
      verdict: b.verdict,
      verdicts: b.verdicts.map((v) => [v.matcher, v.pass, v.verdict]),
    }))
    .sort((x, y) => `${x.file}${x.name}`.localeCompare(`${y.file}${y.name}`))

let unsharded: Summary | undefined

describe('CI features, the same under vitest bench and vitest run', () => {
  it('annotations, JUnit XML, one console line per benchmark and failed check, run folders; -u with a filter is refused', async () => {
    const results = join(dir, 'results')
    const env = { GITHUB_ACTIONS: 'true', SB_RESULT_DIR: results }
    // Vitest's own junit and json reporters, which `vitest bench` alone refuses by name.
    const vitestJunit = (mode: string) => [
      '--reporter=default',
      '--reporter=junit',
      '--reporter=json',
      `--outputFile.junit=${join(dir, `vitest-${mode}.xml`)}`,
      `--outputFile.json=${join(dir, `vitest-${mode}.json`)}`,
    ]
    const bench = await runVitest(
      'ci',
      ['bench', '--run', ...vitestJunit('bench'), '--outputJson', join(dir, 'tinybench.json')],
      { ...env, SB_JUNIT: join(dir, 'bench.xml') },
    )
    expect(bench.code, bench.output).toBe(1)
    const run = await runVitest('ci', ['run', ...vitestJunit('run')], {
      ...env,
      SB_JUNIT: join(dir, 'run.xml'),
      SB_KEEP_RUNS: '1',
    })
    expect(run.code, run.output).toBe(1)

    // GitHub annotations: one ::error per failed check, at the serveBench(...) call, in both modes.
    expect(errorAnnotations(bench.output)).toEqual([
      '::error file=test/projects/ci/fail.bench.ts,line=5,col=1,title=servebench%3A misses its SLO › toMeetSLO p99 TTFT::✗ p99 TTFT <n> ms > 1 ms (95%25 CI <n> … ∞ ms)',
    ])
    expect(errorAnnotations(run.output)).toEqual(errorAnnotations(bench.output))
    // Vitest's own annotation of the failed test, under bench as under run (there: by --reporter).
    for (const output of [bench.output, run.output]) expect(output).not.toMatch(/^::error .*pass\.bench\.ts/m)

    // Console: one line per benchmark, one per failed check; no empty BENCH Summary header.
    for (const output of [bench.output, run.output]) {
      expect(output).toMatch(/^servebench ✓ pass\.bench\.ts › holds its SLO {2}8 ok · /m)
      expect(output).toMatch(
        /^servebench ✗ fail\.bench\.ts › misses its SLO {2}8 ok · .*\nservebench {3}✗ p99 TTFT \d+\.\d ms > 1 ms \(95% CI \d+\.\d … ∞ ms\) \(toMeetSLO\)$/m,
      )
    }
    expect(bench.output).not.toContain('BENCH')
    expect(bench.output).toContain(
      `servebench: --outputJson lists bench() micro-benchmarks only; serveBench results are in ${relative(REPO, join(results, 'servebench-summary.json'))} (Vitest's JSON report of the benchmarks: --reporter=json --outputFile=<file>)`,
    )

    // JUnit XML from servebench's option; Vitest's own JUnit and JSON reports; in both modes.
    for (const mode of ['bench', 'run']) {
      const ours = await readFile(join(dir, `${mode}.xml`), 'utf8')
      expect(ours).toContain('<testsuites name="servebench" tests="2" failures="1" errors="0" skipped="0"')
      expect(ours).toMatch(
        /<testcase classname="fail\.bench\.ts" name="misses its SLO" time="[\d.]+">[\s\S]*<failure message="SLO missed: p99 TTFT \d+\.\d ms &gt; 1 ms" type="toMeetSLO">/,
      )
      expect(ours).toMatch(
        /<testcase classname="pass\.bench\.ts" name="holds its SLO" time="[\d.]+">\n\s+<properties>\n\s+<property name="servebench.verdict" value="pass"\/>/,
      )
      const vitest = await readFile(join(dir, `vitest-${mode}.xml`), 'utf8')
      expect(vitest).toMatch(/<testcase classname="fail\.bench\.ts" name="misses its SLO"[^>]*>\s*<failure/)
      expect(await readJson(join(dir, `vitest-${mode}.json`))).toMatchObject({
        numPassedTests: 1,
        numFailedTests: 1,
        success: false,
      })
    }

    // Run folders: each run's files together; keepRuns 1 left only the second run's.
    const entries = (await readdir(results)).sort()
    expect(entries).toEqual([
      expect.stringMatching(/^run-\d{8}-\d{6}$/),
      'servebench-pr-comment.md',
      'servebench-summary.json',
      'servebench-summary.md',
    ])
    const summary = await readJson<Summary>(join(results, 'servebench-summary.json'))
    expect(await readJson<Summary>(join(await latestRunFolder(results), 'servebench-summary.json'))).toEqual(
      summary,
    )
    for (const b of summary.benchmarks) expect(existsSync(join(results, b.resultFile!))).toBe(true)
    unsharded = summary

    // `-u fail` would read as --update=fail and rewrite every baseline: refused, with the fix.
    const update = await runVitest('ci', ['bench', '--run', '-u', 'fail'], { SB_RESULT_DIR: join(dir, 'u') })
    expect(update.code).toBe(1)
    expect(update.output).toContain(
      '-u took "fail" as its value (--update accepts all, new or none), so "fail" is no file filter and every baseline would be rewritten. To update one file\'s baselines, put the filter first: vitest bench --run fail -u',
    )
  }, 240_000)

  it('two shards merged by servebench merge-summaries equal the unsharded run', async () => {
    expect(unsharded, 'needs the unsharded run of the test above').toBeDefined()
    const shard = (i: number) =>
      runVitest('ci', ['bench', '--run', `--shard=${i}/2`], { SB_RESULT_DIR: join(dir, `shard-${i}`) })
    const shards = await Promise.all([shard(1), shard(2)])
    expect(shards.map((s) => s.code).sort()).toEqual([0, 1])
    const merged = join(dir, 'merged')
    const cli = await runCli([
      'merge-summaries',
      join(dir, 'shard-1'),
      join(dir, 'shard-2'),
      '--output-dir',
      merged,
    ])
    expect(cli.code, cli.stderr).toBe(1)
    expect(cli.stdout).toMatch(/^servebench ✗ fail\.bench\.ts › misses its SLO {2}8 ok/m)
    expect(cli.stdout).toContain(`servebench: merged 2 summaries (2 benchmarks) into `)
    const summary = await readJson<Summary>(join(merged, 'servebench-summary.json'))
    expect(summary.reason).toBe('failed')
    expect(verdictsOf(summary)).toEqual(verdictsOf(unsharded!))
    for (const b of summary.benchmarks) expect(existsSync(resolve(merged, b.resultFile!))).toBe(true)
    const md = await readFile(join(merged, 'servebench-summary.md'), 'utf8')
    expect(md).toContain('## servebench: 2 benchmarks, 1 failed')
    expect(md).toMatch(/- ❌ \*\*misses its SLO\*\* `toMeetSLO`: SLO missed: p99 TTFT/)
  }, 180_000)
})
