import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import type { CapacityResultFile } from '../src/capacity/capacity-result.ts'
import { parsePythonJson } from '../src/report/result/py-json.ts'
import { runCli, test } from './helpers.ts'

const WORKLOAD = [
  '--tokenizer',
  'cl100k_base',
  '--dataset-name',
  'random',
  '--random-input-len',
  '16',
  '--random-output-len',
  '8',
  '--ignore-eos',
  '--client-check',
  'warn',
]

// A decode-bound simulator: TPOT = 10 ms / (1 − rate · 8 tokens · 1 ms / 1000), 20 ms at 62.5 req/s.
const decodeBound = test.extend({
  simOptions: [
    { decodeBaseMs: 10, decodeMsPerSeq: 1, prefillMsPerToken: 0.001, enablePrefixCaching: false },
    { injected: false },
  ],
})

describe('servebench capacity', () => {
  decodeBound(
    'finds the capacity of a decode-bound simulator and writes the capacity result',
    async ({ sim, tmpDir }) => {
      const run = await runCli(
        [
          'capacity',
          '--base-url',
          sim.url,
          ...WORKLOAD,
          '--slo',
          'mean_tpot_ms:20',
          '--max-load',
          '400',
          '--probe-requests',
          '100',
          '--precision',
          '0.1',
          '--budget-requests',
          '2000',
          '--save-result',
          '--result-dir',
          tmpDir,
          '--result-filename',
          'cap.json',
        ],
        { timeoutMs: 170_000 },
      )
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(
        /^capacity [\d.]+ req\/s \(95% interval [\d.]+–[\d.]+\); binding SLO: mean TPOT ≤ 20 ms; \d+ loads probed, [\d,]+ requests, .+$/m,
      )
      expect(run.stdout).toMatch(/^probe 1: 400 req\/s → fail: mean_tpot_ms /m)
      expect(await readdir(tmpDir)).toEqual(['cap.json'])
      const file = parsePythonJson(await readFile(join(tmpDir, 'cap.json'), 'utf8')) as CapacityResultFile
      const { capacity } = file
      expect(file.servebench_kind).toBe('capacity')
      expect(capacity).toMatchObject({ vary: 'request-rate', unit: 'req/s', binding_slo: 'mean_tpot_ms:20' })
      expect(capacity.lower!).toBeLessThanOrEqual(capacity.value!)
      expect(capacity.value!).toBeLessThanOrEqual(capacity.upper!)
      // A busy machine only adds to the simulator's steps: the capacity can only come out lower.
      expect(capacity.upper!).toBeLessThan(62.5 * 1.3)
      expect(file.slos).toEqual([{ metric: 'mean_tpot_ms', bound: 20, kind: 'max' }])
      expect(file.search.probed).toBe(file.probes.length)
      expect(file.search.total_requests).toBe(file.probes.reduce((n, p) => n + p.num_requests, 0))
      expect(file.search.total_requests).toBeLessThanOrEqual(2000)
      // The bracket's ends are probes with the verdicts that make them ends.
      expect(file.probes.find((p) => p.load === capacity.lower)?.verdict).toBe('pass')
      expect(file.probes.find((p) => p.load === capacity.upper)?.verdict).toBe('fail')
      for (const probe of file.probes) {
        expect(probe.checks[0]).toMatchObject({ slo: 'mean_tpot_ms:20' })
        expect(probe.result).toMatchObject({ request_rate: probe.load, completed: probe.num_requests })
        expect(probe.result).not.toHaveProperty('ttfts')
      }
    },
    180_000,
  )

  test('exits 1 when even the lowest load breaks an SLO, naming it', async ({ sim, tmpDir }) => {
    // The fixed-timing simulator answers every first token after 40 ms: p90 TTFT ≤ 20 ms never holds.
    const run = await runCli([
      'capacity',
      '--base-url',
      sim.url,
      ...WORKLOAD,
      '--slo',
      'p90_ttft_ms:20',
      '--min-load',
      '20',
      '--max-load',
      '80',
      '--probe-requests',
      '40',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/^no capacity: even 20 req\/s breaks p90 TTFT ≤ 20 ms; \d+ loads probed/m)
    const [name] = await readdir(tmpDir)
    expect(name).toMatch(/^capacity-openai-servebench_sim-model-\d{8}-\d{6}\.json$/)
    const file = parsePythonJson(await readFile(join(tmpDir, name!), 'utf8')) as CapacityResultFile
    expect(file.capacity).toMatchObject({
      value: null,
      lower: null,
      upper: 20,
      binding_slo: 'p90_ttft_ms:20',
    })
    expect(file.probes.map((p) => p.verdict)).toEqual(file.probes.map(() => 'fail'))
  })

  test('exits 2 on an unknown --slo metric, listing the valid ones', async () => {
    const run = await runCli(['capacity', '--slo', 'p99_latency:500', ...WORKLOAD])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--slo has an unknown metric "p99_latency" in "p99_latency:500"; valid: ')
    expect(run.stderr).toContain('p99_ttft_ms, mean_tpot_ms, p90_e2el_ms, median_itl_ms')
  })

  test('exits 2 on a bad --vary, a missing --slo, a bound that is not a number, and the flags the search sets', async () => {
    const run = await runCli([
      'capacity',
      '--vary',
      'qps',
      '--num-prompts',
      '100',
      '--request-rate',
      '5',
      ...WORKLOAD,
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--vary must be one of request-rate, max-concurrency (got "qps")')
    expect(run.stderr).toContain('--slo is required')
    expect(run.stderr).toContain('--num-prompts is not a servebench capacity flag')
    expect(run.stderr).toContain('--request-rate is what the search varies')
    const bound = await runCli(['capacity', '--slo', 'p99_ttft_ms:fast', ...WORKLOAD])
    expect(bound.code).toBe(2)
    expect(bound.stderr).toContain('--slo must be METRIC:BOUND')
    const range = await runCli([
      'capacity',
      '--slo',
      'p99_ttft_ms:500',
      '--min-load',
      '10',
      '--max-load',
      '5',
    ])
    expect(range.code).toBe(2)
    expect(range.stderr).toContain('--max-load must be at least the minimum load 10 (got 5)')
  })

  test('--help lists the capacity flags with their defaults', async () => {
    const run = await runCli(['capacity', '--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Usage: servebench capacity --slo METRIC:BOUND...')
    expect(run.stdout).toMatch(/--precision VALUE .*\(default: 0\.05\)/)
  })
})
