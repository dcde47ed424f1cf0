import { describe, expect, it } from 'vitest'
import { mergeSummaries, summaryProblems } from './merge-summaries.ts'
import type { RunSummary, SummaryBenchmark } from './run-summary.ts'

const b = (file: string, name: string, state: SummaryBenchmark['state'] = 'passed'): SummaryBenchmark => ({
  file,
  name,
  state,
  verdict: state === 'failed' ? 'fail' : 'pass',
  durationMs: 1,
  fingerprint: '0123456789abcdef',
  resultFile: `run-20261201-000000/${name}.json`,
  metrics: null,
  verdicts: [],
  errors: [],
})
const shard = (
  path: string,
  reason: RunSummary['reason'],
  date: string,
  ...benchmarks: SummaryBenchmark[]
) => ({
  path,
  summary: { date, reason, benchmarks },
})

describe('mergeSummaries', () => {
  it('orders benchmarks by file, keeps each file in order, takes the worst reason and the latest date', () => {
    const merged = mergeSummaries(
      [
        shard(
          's2/servebench-summary.json',
          'failed',
          '2026-12-01T10:00:02Z',
          b('b.bench.ts', 'z', 'failed'),
          b('b.bench.ts', 'a'),
        ),
        shard('s1/servebench-summary.json', 'passed', '2026-12-01T10:00:01Z', b('a.bench.ts', 'x')),
      ],
      (s, f) => `../${s.path.split('/')[0]}/${f}`,
    )
    expect(merged.reason).toBe('failed')
    expect(merged.date).toBe('2026-12-01T10:00:02Z')
    expect(merged.benchmarks.map((x) => [x.file, x.name, x.resultFile])).toEqual([
      ['a.bench.ts', 'x', '../s1/run-20261201-000000/x.json'],
      ['b.bench.ts', 'z', '../s2/run-20261201-000000/z.json'],
      ['b.bench.ts', 'a', '../s2/run-20261201-000000/a.json'],
    ])
    expect(
      mergeSummaries([shard('a', 'passed', 'd'), shard('b', 'interrupted', 'd'), shard('c', 'failed', 'd')])
        .reason,
    ).toBe('interrupted')
  })

  it('refuses a benchmark held by two shards', () => {
    expect(() =>
      mergeSummaries([
        shard('s1', 'passed', 'd', b('a.bench.ts', 'x')),
        shard('s2', 'passed', 'd', b('a.bench.ts', 'x')),
      ]),
    ).toThrow('s1 and s2 both hold "a.bench.ts › x": merge the shards of one run, each once')
  })
})

describe('summaryProblems', () => {
  it('names every field that is missing or wrong', () => {
    expect(summaryProblems({ date: 'd', reason: 'passed', benchmarks: [b('a', 'x')] })).toEqual([])
    expect(
      summaryProblems({ reason: 'ok', benchmarks: [{ file: 'a', name: 'x', state: 'done' }, 3] }),
    ).toEqual([
      'date must be a string',
      'reason must be one of passed, failed, interrupted (got "ok")',
      'benchmarks[0].fingerprint must be a string',
      'benchmarks[0].state must be one of passed, failed, skipped, pending (got "done")',
      'benchmarks[0].verdicts must be an array',
      'benchmarks[0].errors must be an array',
      'benchmarks[1] must be an object',
    ])
    expect(summaryProblems([])).toEqual(['must be a JSON object'])
  })
})
