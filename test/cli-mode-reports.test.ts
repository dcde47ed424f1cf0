import { describe, expect } from 'vitest'
import { validateResultFile } from '../src/report/result/schema/index.ts'
import { validateModeFile } from '../src/report/result/schema/modes.ts'
import { readJsonFiles, readOnlyResult, runCli, test } from './helpers.ts'

// What every run of a sweep, --num-runs or multi-turn reports: the failure-ratio checks, and the
// pooling table with its steady-state window and probes.
const SMALL = [
  '--tokenizer',
  'cl100k_base',
  '--random-input-len',
  '32',
  '--random-output-len',
  '8',
  '--disable-tqdm',
]

describe('failure ratios in the run modes', () => {
  test('each sweep point and each --num-runs run is checked; one above --fail-on-error-ratio exits 1', async ({
    sim,
  }) => {
    sim.setFaults(['http500:every=4'])
    const sweep = await runCli([
      'serve',
      '--base-url',
      sim.url,
      ...SMALL,
      '--num-prompts',
      '8',
      '--sweep-max-concurrency',
      '2,4',
      '--fail-on-error-ratio',
      '0.2',
    ])
    expect(sweep.code).toBe(1)
    expect(
      sweep.stderr.match(
        /servebench: FAILED: 2 of 8 requests failed \(25%\), above --fail-on-error-ratio 0\.2 \(20%\)\n/g,
      ),
    ).toHaveLength(2)
    sim.setFaults(['http500:every=4'])
    const runs = await runCli([
      'serve',
      '--base-url',
      sim.url,
      ...SMALL,
      '--num-prompts',
      '8',
      '--num-runs',
      '2',
    ])
    expect(runs.code).toBe(0)
    expect(
      runs.stderr.match(
        /servebench: WARNING: 2 of 8 requests failed \(25%\), above --max-failure-ratio 0\.05 \(5%\)\n/g,
      ),
    ).toHaveLength(2)
    sim.setFaults(['http500:every=3'])
    const multiTurn = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'openai-chat',
      ...SMALL,
      '--multi-turn',
      '--multi-turn-continue-on-failure',
      '--num-prompts',
      '2',
      '--fail-on-error-ratio',
      '0.1',
    ])
    expect(multiTurn.code).toBe(1)
    expect(multiTurn.stderr).toContain(
      'servebench: FAILED: 2 of 6 requests failed (33.3%), above --fail-on-error-ratio 0.1 (10%)\n',
    )
  })
})

describe('pooling runs in the run modes', () => {
  test('a pooling sweep prints the pooling table per point, with the steady-state window and probes', async ({
    sim,
    tmpDir,
  }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'openai-embeddings',
      ...SMALL,
      '--num-prompts',
      '16',
      '--sweep-max-concurrency',
      '2,4',
      '--probe-request-rate',
      '50',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    expect(run.stdout.match(/^Input throughput \(inputs\/s\): +[\d.]+ *$/gm)).toHaveLength(2)
    expect(run.stdout).not.toContain('Total generated tokens')
    expect(run.stdout.match(/Steady-State Metrics/g)).toHaveLength(2)
    expect(run.stdout).toContain('------------------Probe Requests------------------')
    expect(run.stdout).toMatch(/^concurrency=4 +[\d.]+ +[\d.]+ +- /m)
    const files = await readJsonFiles(tmpDir)
    const points = Object.entries(files).filter(([n]) => !n.includes('-sweep-'))
    expect(points).toHaveLength(2)
    for (const [, point] of points) {
      expect(validateResultFile(point)).toEqual({ valid: true })
      const ss = point.steady_state as { window: { target_concurrency: number } }
      expect(ss.window.target_concurrency).toBe(point.max_concurrency)
      expect(point.probe_completed as number).toBeGreaterThan(0)
    }
    const combined = Object.entries(files).find(([n]) => n.includes('-sweep-'))![1]
    expect(validateModeFile(combined)).toEqual({ valid: true })
  })

  test('--num-runs over a pooling backend prints the pooling table and summarises inputs per second', async ({
    sim,
    tmpDir,
  }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'vllm-pooling',
      ...SMALL,
      '--num-prompts',
      '6',
      '--max-concurrency',
      '2',
      '--num-runs',
      '2',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(0)
    expect(run.stdout.match(/^Input throughput \(inputs\/s\):/gm)).toHaveLength(2)
    expect(run.stdout).toMatch(/^input_sequence_throughput +[\d.]+/m)
    const summary = await readOnlyModeFile(tmpDir)
    expect(summary.metrics).toHaveProperty('input_sequence_throughput')
  })
})

async function readOnlyModeFile(dir: string): Promise<Record<string, unknown>> {
  const files = Object.values(await readJsonFiles(dir))
  expect(files).toHaveLength(1)
  expect(validateModeFile(files[0])).toEqual({ valid: true })
  return files[0]!
}

describe('a single pooling run', () => {
  test('has the steady-state window and the probe keys', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'openai-embeddings',
      ...SMALL,
      '--num-prompts',
      '12',
      '--max-concurrency',
      '3',
      '--probe-request-rate',
      '50',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(0)
    const result = await readOnlyResult(tmpDir)
    expect((result.steady_state as { window: { observed_peak: number } }).window.observed_peak).toBe(3)
    expect(result.probe_completed as number).toBeGreaterThan(0)
    expect(run.stdout).toContain('============ Steady-State Metrics =============')
  })
})
