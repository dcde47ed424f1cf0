import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { validateResultFile } from '../src/report/result/schema/index.ts'
import { latestRunFolder, runVitest } from './vitest-helpers.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-vitest-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('vitest bench', () => {
  it('passes a suite whose SLO holds and writes schema-valid results and summaries', async () => {
    const stepSummary = join(dir, 'step-summary.md')
    const run = await runVitest('slo', ['bench', '--run', 'slo-pass'], {
      SB_RESULT_DIR: join(dir, 'results'),
      GITHUB_STEP_SUMMARY: stepSummary,
      SB_CSV: '1',
      SB_HTML: '1',
      SB_HISTORY: join(dir, 'history.jsonl'),
      GITHUB_SHA: '0123abcd',
    })
    expect(run.output).toContain('servebench ✓ slo-pass.bench.ts › chat > holds its SLO  36 ok')
    expect(run.code).toBe(0)

    const runDir = await latestRunFolder(join(dir, 'results'))
    const files = await readdir(runDir)
    const results = files.filter(
      (f) =>
        f.startsWith('slo-pass-chat-holds-its-SLO-infqps-concurrency4-sim-model-') && f.endsWith('.json'),
    )
    expect(results).toHaveLength(1)
    const result = JSON.parse(await readFile(join(runDir, results[0]!), 'utf8'))
    expect(validateResultFile(result)).toEqual({ valid: true })
    // One extra round of 12 requests decided the p90 bound; the result holds both rounds.
    expect(result).toMatchObject({ completed: 36, failed: 0, label: 'holds its SLO', max_concurrency: 4 })

    const summary = JSON.parse(await readFile(join(dir, 'results', 'servebench-summary.json'), 'utf8'))
    expect(summary.reason).toBe('passed')
    expect(summary.benchmarks).toHaveLength(1)
    const [bench] = summary.benchmarks
    expect(bench).toMatchObject({
      file: 'slo-pass.bench.ts',
      name: 'chat > holds its SLO',
      state: 'passed',
      verdict: 'pass',
      rounds: 2,
    })
    expect(bench.fingerprint).toMatch(/^[0-9a-f]{16}$/)
    expect(bench.verdicts.map((v: { matcher: string; pass: boolean }) => [v.matcher, v.pass])).toEqual([
      ['toMeetSLO', true],
      ['toHaveGoodput', true],
    ])
    expect(bench.verdicts[0].checks[0]).toMatchObject({
      metric: 'p90 TTFT',
      limit: 2000,
      unit: 'ms',
      pass: true,
      verdict: 'pass',
    })
    expect(bench.verdicts[0].checks[0].interval[1]).toBeLessThanOrEqual(2000)

    const markdown = await readFile(stepSummary, 'utf8')
    expect(markdown).toContain('## servebench: 1 benchmark, all passed')
    expect(markdown).toContain('| ✅ | slo-pass.bench.ts › chat > holds its SLO | 36 |')
    expect(markdown).toBe(`${await readFile(join(dir, 'results', 'servebench-summary.md'), 'utf8')}\n`)
    expect(markdown).toMatch(
      /\| slo-pass\.bench\.ts › chat > holds its SLO \| `toMeetSLO` \| p90 TTFT \| ≤ 2000 ms \| [\d.]+ ms \| -\d+\.\d% \| [\d.]+ ms … [\d.]+ ms \| ✅ pass \|/,
    )
    // Error rates and goodput read as percentages, not "≤ 0 fraction".
    expect(markdown).toContain('| `toMeetSLO` | error rate | ≤ 0% | 0% | – | – | ✅ pass |')
    expect(markdown).toMatch(/\| `toHaveGoodput` \| goodput \| ≥ 80% \| [\d.]+% \|/)

    // The PR comment, the CSVs, the history line and the HTML report of the same run.
    const comment = await readFile(join(dir, 'results', 'servebench-pr-comment.md'), 'utf8')
    expect(comment).toMatch(/^<!-- servebench:pr-comment -->\n## servebench: ✅ all \d+ checks passed\n/)
    expect(comment).toContain(
      '| slo-pass.bench.ts › chat > holds its SLO | `toMeetSLO` | p90 TTFT | ≤ 2000 ms |',
    )
    const summaryCsv = (await readFile(join(dir, 'results', 'servebench-summary.csv'), 'utf8')).split('\r\n')
    expect(summaryCsv[0]).toMatch(/^name,date,completed,failed,/)
    expect(summaryCsv[1]).toMatch(/^slo-pass\.bench\.ts › chat > holds its SLO,\d{8}-\d{6},36,0,/)
    const requestsCsv = await readFile(join(runDir, results[0]!.replace(/\.json$/, '.requests.csv')), 'utf8')
    expect(requestsCsv.trimEnd().split('\r\n')).toHaveLength(37)
    const history = (await readFile(join(dir, 'history.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(history).toHaveLength(1)
    expect(history[0]).toMatchObject({
      v: 1,
      commit: '0123abcd',
      benchmark: 'slo-pass.bench.ts › chat > holds its SLO',
      fingerprint: bench.fingerprint,
      verdict: 'pass',
      metrics: { completed: 36, failed: 0 },
    })
    const html = await readFile(join(dir, 'results', 'servebench-report.html'), 'utf8')
    expect(html).toContain('"id":"b0-ttft-cdf"')
    expect(html).toContain('p90 TTFT ≤ 2000 ms ✓ pass')
    expect(html).toContain('"id":"trend-0"')
  })

  it('fails a suite whose SLO cannot hold, naming the bound', async () => {
    const run = await runVitest('slo', ['bench', '--run', 'slo-fail'], {
      SB_RESULT_DIR: join(dir, 'results'),
    })
    expect(run.code).toBe(1)
    expect(run.output).toMatch(
      /Error: SLO missed: p99 TTFT \d+\.\d ms > 1 ms\n {2}✗ p99 TTFT \d+\.\d ms > 1 ms \(95% CI \d+\.\d … ∞ ms\)\n {2}✓ error rate 0\.0% ≤ 0%\n/,
    )
    // One line per check, pointing at the suite: no diff of the checks, no servebench frames.
    expect(run.output).toMatch(/❯ slo-fail\.bench\.ts:\d+:\d+/)
    expect(run.output).not.toMatch(/Expected|Received|dsl\.ts|matchers\.ts/)
    // The result is still written and the summary records the failed verdict.
    const summary = JSON.parse(await readFile(join(dir, 'results', 'servebench-summary.json'), 'utf8'))
    expect(summary.benchmarks[0]).toMatchObject({
      state: 'failed',
      verdicts: [{ matcher: 'toMeetSLO', pass: false }],
    })
    expect(summary.benchmarks[0].resultFile).toMatch(/^run-\d{8}-\d{6}\/slo-fail-chat-misses-its-SLO-/)
  })

  it('reports a check it cannot decide within the budget as inconclusive, failing it only under the fail policy', async () => {
    const run = await runVitest('slo', ['bench', '--run', 'slo-undecided'], {
      SB_RESULT_DIR: join(dir, 'results'),
    })
    expect(run.code).toBe(1)
    expect(run.output).toContain(
      'servebench ? slo-undecided.bench.ts › chat > undecided, point policy [inconclusive]  24 ok',
    )
    expect(run.output).toMatch(
      /SLO undecided: p99 TTFT \d+\.\d ms ≤ 2000 ms\n {2}\? p99 TTFT \d+\.\d ms ≤ 2000 ms \(95% CI \d+\.\d … ∞ ms\) — inconclusive; about 3\d\d requests would decide it/,
    )
    const summary = JSON.parse(await readFile(join(dir, 'results', 'servebench-summary.json'), 'utf8'))
    expect(
      summary.benchmarks.map((b: { name: string; state: string; verdict: string }) => [
        b.name,
        b.state,
        b.verdict,
      ]),
    ).toEqual([
      ['chat > undecided, point policy', 'passed', 'inconclusive'],
      ['chat > undecided, fail policy', 'failed', 'inconclusive'],
    ])
  })

  it('fails with a clear message when the endpoint is unreachable', async () => {
    const run = await runVitest('slo', ['bench', '--run', 'unreachable'], {
      SB_RESULT_DIR: join(dir, 'results'),
    })
    expect(run.code).toBe(1)
    expect(run.output).toContain(
      'EndpointError: All 3 requests to http://127.0.0.1:9/v1/completions failed; first error: Request failed: connect ECONNREFUSED 127.0.0.1:9',
    )
  })
})

describe('vitest run', () => {
  it('runs serveBench in test files and exits 0 when the SLO holds', async () => {
    const run = await runVitest('slo', ['run', 'run-pass'], { SB_RESULT_DIR: join(dir, 'results') })
    expect(run.output).toContain('✓ run-pass.test.ts (1 test)')
    expect(run.code).toBe(0)
  })

  it('exits 1 with the bound in the message when the SLO misses', async () => {
    const run = await runVitest('slo', ['run', 'run-fail'], { SB_RESULT_DIR: join(dir, 'results') })
    expect(run.code).toBe(1)
    expect(run.output).toMatch(/SLO missed: mean E2EL \d+\.\d ms > 2 ms/)
    expect(run.output).toContain('Tests  1 failed (1)')
  })
})
