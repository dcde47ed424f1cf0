import { describe, expect, it } from 'vitest'
import type { PoolingBenchResult } from '../result/pooling-result.ts'
import type { BenchResult } from '../result/result-types.ts'
import type { Verdict } from './run-summary.ts'
import { benchmarkVerdict, type CollectedBenchmark, runResultOf, summariseBenchmark } from './summarise.ts'

const verdict = (value: Verdict['verdict'], checks: Verdict['verdict'][] = [value]): Verdict => ({
  matcher: 'toMeetSLO',
  pass: value !== 'fail',
  verdict: value,
  summary: `SLO ${value}`,
  checks: checks.map((v) => ({
    metric: 'p99 TTFT',
    actual: 1,
    limit: 2,
    unit: 'ms',
    pass: v !== 'fail',
    verdict: v,
  })),
})

const collected = (over: Partial<CollectedBenchmark> = {}): CollectedBenchmark => ({
  file: 'chat.bench.ts',
  name: 'chat',
  state: 'passed',
  durationMs: 12,
  errors: [],
  fingerprint: '0123456789abcdef',
  verdicts: [],
  warnings: [],
  ...over,
})

describe('benchmarkVerdict', () => {
  it('is the worst of the verdicts and their checks', () => {
    expect(
      benchmarkVerdict(collected({ verdicts: [verdict('pass'), verdict('pass', ['inconclusive'])] })),
    ).toBe('inconclusive')
    expect(
      benchmarkVerdict(collected({ state: 'failed', verdicts: [verdict('fail'), verdict('invalid')] })),
    ).toBe('fail')
  })

  it('is invalid for a saturated client, none for a benchmark that did not run, fail for an error', () => {
    expect(benchmarkVerdict(collected({ state: 'skipped', invalid: 'loop lag' }))).toBe('invalid')
    expect(benchmarkVerdict(collected({ state: 'skipped' }))).toBeNull()
    expect(benchmarkVerdict(collected({ state: 'pending' }))).toBeNull()
    expect(benchmarkVerdict(collected({ state: 'failed', errors: ['ECONNREFUSED'] }))).toBe('fail')
  })
})

describe('summariseBenchmark', () => {
  it('writes the keys of servebench-summary.json in their order, warnings last', () => {
    // The summary copies these keys as they are; only `duration` is renamed (`duration_s`).
    const copied = {
      request_throughput: 4.5,
      output_throughput: 120,
      mean_ttft_ms: 10,
      p99_ttft_ms: 30,
      mean_tpot_ms: 2,
      mean_itl_ms: 2,
      mean_e2el_ms: 50,
      p99_e2el_ms: 90,
    }
    const result = {
      completed: 9,
      failed: 1,
      duration: 2,
      ...copied,
      ttfts: [],
      client_health: { saturated: false },
    } as unknown as BenchResult
    const entry = summariseBenchmark(
      collected({ result, rounds: 2, warnings: ['1 of 10 requests failed'], verdicts: [verdict('pass')] }),
      'run-1/chat.json',
    )
    expect(Object.keys(entry)).toEqual([
      'file',
      'name',
      'state',
      'verdict',
      'rounds',
      'clientHealth',
      'durationMs',
      'fingerprint',
      'resultFile',
      'metrics',
      'verdicts',
      'errors',
      'warnings',
    ])
    expect(entry.metrics).toEqual({ completed: 9, failed: 1, duration_s: 2, ...copied })
    expect(entry.warnings).toEqual(['1 of 10 requests failed'])
  })

  it('counts a pooling result’s failures from its errors and has no token figures', () => {
    const result = {
      completed: 3,
      duration: 1,
      request_throughput: 3,
      errors: ['', 'timeout', ''],
    } as unknown as PoolingBenchResult
    const entry = summariseBenchmark(collected({ result }), null)
    expect(entry.metrics).toMatchObject({
      completed: 3,
      failed: 1,
      output_throughput: null,
      mean_ttft_ms: null,
    })
    expect(runResultOf({ result })?.kind).toBe('pooling')
    expect(runResultOf({ result, kind: 'multi-turn' })?.kind).toBe('multi-turn')
    expect(runResultOf({})).toBeUndefined()
  })
})
