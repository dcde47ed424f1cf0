import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseResultText } from '../compare/compare.ts'
import { computeRunStats, formatMultiRunSummary, multiRunJson, summariseRuns } from './multi-run.ts'
import type { BenchResult } from './result-types.ts'

const runs = readFileSync(resolve(import.meta.dirname, '../../../fixtures/results/multi-run.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => parseResultText(line) as BenchResult)

// Hand-computed from fixtures/results/multi-run.jsonl (population std).
describe('summariseRuns', () => {
  const summary = summariseRuns(runs)

  it('gives mean, population std, min, max and CV per metric', () => {
    const rt = summary.metrics.request_throughput!
    expect(rt).toMatchObject({ present: 3, mean: 12, min: 10, max: 14 })
    expect(rt.std).toBeCloseTo(Math.sqrt(8 / 3), 12)
    expect(rt.cvPct).toBeCloseTo((Math.sqrt(8 / 3) / 12) * 100, 10)
    expect(summary.metrics.p99_ttft_ms!.std).toBeCloseTo(Math.sqrt(600), 10)
    expect(summary.metrics.failed).toMatchObject({ mean: 2 / 3, min: 0, max: 2 })
  })

  it('leaves out metrics no run reported', () => {
    expect(summary.metrics.mean_e2el_ms).toBeUndefined()
  })

  it('summarises steady state over the runs that had a window', () => {
    expect(summary.steadyStateRuns).toBe(2)
    expect(summary.steadyState!.request_throughput).toMatchObject({ present: 2, mean: 10, std: 1 })
    expect(summary.steadyState!.output_throughput).toMatchObject({ mean: 950, std: 50 })
  })

  it('prints the table with Rust number cells', () => {
    const text = formatMultiRunSummary(summary)
    const row = (key: string) => text.split('\n').find((l) => l.startsWith(`${key} `))
    expect(text.split('\n')[0]).toBe(`${'='.repeat(26)} Multi-Run Summary (3 runs) ${'='.repeat(26)}`)
    expect(row('request_throughput')).toBe(
      `${'request_throughput'.padEnd(35)} ${'12'.padStart(10)} ${'1.63'.padStart(10)} ${'10'.padStart(10)} ${'14'.padStart(10)} ${'13.6%'.padStart(8)}`,
    )
    expect(row('completed')).toMatch(/ +99\.33 +0\.94 +98 +100 +0\.9%$/)
    expect(row('failed')).toMatch(/ +0\.67 +0\.94 +0 +2 +141\.4%$/)
    expect(text).toContain('Throughput CV: 13.6% (lower = more stable across runs)')
    expect(text).toContain(' Steady-State Summary (2/3 runs) ')
    expect(text).toContain('Note: 1 run(s) had no steady-state window')
  })

  it('writes the summary and the runs as JSON', () => {
    const json = multiRunJson(runs, summary)
    expect(json).toMatchObject({ mode: 'multi_run', num_runs: 3, model_id: 'm', steady_state_runs: 2 })
    expect((json.metrics as Record<string, { mean: number }>).duration!.mean).toBeCloseTo(25 / 3, 12)
    expect(json.runs).toHaveLength(3)
  })
})

// Vectors of the Rust port's compute_stats_opt tests (multi_run.rs).
describe('computeRunStats', () => {
  it('skips missing values and gives zeros when none is present', () => {
    expect(computeRunStats([10, undefined, 20])).toMatchObject({ present: 2, mean: 15, min: 10, max: 20 })
    expect(computeRunStats([undefined, null])).toEqual({
      present: 0,
      mean: 0,
      std: 0,
      min: 0,
      max: 0,
      cvPct: 0,
    })
  })
})
