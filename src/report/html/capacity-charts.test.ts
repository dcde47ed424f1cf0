import { describe, expect, it } from 'vitest'
import { EXAMPLE_ANSWER, EXAMPLE_SLOS } from '../../../test/capacity-answers.ts'
import type { CapacityResultFile } from '../../capacity/capacity-result.ts'
import { capacityFileIssues, capacitySection, capacitySentence } from './capacity-charts.ts'

// Probes as a search runs them: bracket (1, 32), then bisect.
const FILE: CapacityResultFile = {
  servebench_kind: 'capacity',
  date: '20261204-220000',
  backend: 'openai',
  model_id: 'sim',
  base_url: 'http://127.0.0.1:8000',
  capacity: EXAMPLE_ANSWER,
  slos: EXAMPLE_SLOS,
  probes: [
    [1, 'pass', 80],
    [32, 'fail', 2100],
    [16, 'fail', 720],
    [12, 'inconclusive', 470],
  ].map(([load, verdict, ms]) => ({
    load: load as number,
    verdict: verdict as 'pass' | 'fail' | 'inconclusive',
    num_requests: 300,
    duration_s: 30,
    checks: [
      {
        slo: 'p99_ttft_ms:500',
        verdict: verdict as 'pass' | 'fail' | 'inconclusive',
        estimate: ms as number,
        lower: (ms as number) * 0.9,
        upper: (ms as number) * 1.1,
      },
    ],
    result: {},
  })),
  search: {
    min_load: 1,
    max_load: 32,
    precision: 0.05,
    budget_requests: 5000,
    probed: 4,
    total_requests: 1200,
    duration_s: 192,
  },
}

describe('the capacity section of the HTML report', () => {
  it('says the answer as servebench capacity prints it', () => {
    expect(capacitySentence(FILE)).toBe(
      'capacity 14.2 req/s (95% interval 13.1–15); binding SLO: p99_ttft_ms:500; 4 loads probed, 1,200 requests, 3 min 12 s',
    )
    expect(
      capacitySentence({ ...FILE, capacity: { ...FILE.capacity, value: null, lower: null, upper: null } }),
    ).toBe(
      'no capacity: even the lowest load probed (1 req/s) breaks p99_ttft_ms:500; 4 loads probed, 1,200 requests, 3 min 12 s',
    )
  })

  it('draws the SLO against the loads in order, the bound, the verdicts, the answer and its interval', () => {
    const section = capacitySection('capacity', 'cap', FILE)
    const [chart] = section.charts
    expect(chart!.x).toEqual([1, 12, 16, 32])
    expect(chart!.series.map((s) => [s.label, s.values])).toEqual([
      ['p99_ttft_ms (estimate)', [80, 470, 720, 2100]],
      ['interval low', [80, 470, 720, 2100].map((ms) => ms * 0.9)],
      ['interval high', [80, 470, 720, 2100].map((ms) => ms * 1.1)],
      ['probe pass', [80, null, null, null]],
      ['probe fail', [null, null, 720, 2100]],
      ['probe inconclusive', [null, 470, null, null]],
    ])
    expect(chart!.marks).toEqual([
      { axis: 'y', value: 500, label: 'SLO p99_ttft_ms ≤ 500 ms', color: '#d62728' },
      { axis: 'x', value: 14.2, label: 'capacity 14.2 req/s', color: '#333' },
    ])
    expect(chart!.band).toEqual({ from: 13.1, to: 15, label: '95% interval' })
    expect(section.tables.map((t) => t.title)).toEqual(['Answer', 'Probes (in the order run)'])
    expect(section.tables[1]!.rows.map((r) => r.slice(0, 3))).toEqual([
      ['1', '1', '✓ pass'],
      ['2', '32', '✗ fail'],
      ['3', '16', '✗ fail'],
      ['4', '12', '? inconclusive'],
    ])
  })

  it('names every key it cannot draw', () => {
    expect(
      capacityFileIssues({
        servebench_kind: 'capacity',
        capacity: { vary: 'qps', value: '14' },
        probes: [{}],
      }),
    ).toEqual([
      'capacity.vary must be request-rate or max-concurrency (got "qps")',
      'capacity.value must be a number or null (got "14")',
      'capacity.lower must be a number or null (got undefined)',
      'capacity.upper must be a number or null (got undefined)',
      'slos must be a list of {metric, bound, kind}',
      'probes[0] must have a numeric load and a list of checks',
    ])
  })
})
