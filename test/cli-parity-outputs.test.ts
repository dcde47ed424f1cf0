import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { runCli, test } from './helpers.ts'

// One CLI run checks three things Python prints or writes: the ramp-up lines, the
// --report-cached-tokens warning against a server that reports none (the simulator), and the
// PyTorch-benchmark file that SAVE_TO_PYTORCH_BENCHMARK_FORMAT asks for.
describe('servebench serve: Python outputs beside the result', () => {
  test('ramp-up lines, the cached-tokens warning and <name>.pytorch.json', async ({ sim, tmpDir }) => {
    const run = await runCli(
      [
        'serve',
        '--base-url',
        sim.url,
        '--tokenizer',
        'cl100k_base',
        '--random-input-len',
        '16',
        '--random-output-len',
        '4',
        '--num-prompts',
        '6',
        '--ramp-up-strategy',
        'linear',
        '--ramp-up-start-rps',
        '50',
        '--ramp-up-end-rps',
        '200',
        '--report-cached-tokens',
        '--header',
        'X-Team=secret-team',
        '--metadata',
        'tensor_parallel_size=2',
        '--disable-tqdm',
        '--save-result',
        '--result-dir',
        tmpDir,
        '--result-filename',
        'run.json',
      ],
      { env: { SAVE_TO_PYTORCH_BENCHMARK_FORMAT: '1' } },
    )
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(
      'Traffic ramp-up strategy: linear.\nWill increase RPS from 50 to 200 RPS over the duration of the benchmark.\nBurstiness factor: 1.0 (Poisson process)\n',
    )
    expect(run.stdout).not.toContain('Traffic request rate:')
    expect(run.stdout).toMatch(/^WARNING: --report-cached-tokens is set, .*--enable-prompt-tokens-details/m)
    expect(run.stdout).not.toContain('Total cached tokens:')

    expect((await readdir(tmpDir)).sort()).toEqual(['run.json', 'run.pytorch.json'])
    const records = JSON.parse(await readFile(join(tmpDir, 'run.pytorch.json'), 'utf8')) as Array<{
      benchmark: { name: string; extra_info: { args: Record<string, unknown> } }
      model: { name: unknown }
      metric: { name: string; benchmark_values: number[]; extra_info: Record<string, unknown> }
    }>
    const result = JSON.parse(await readFile(join(tmpDir, 'run.json'), 'utf8')) as Record<string, unknown>
    expect(records.map((r) => r.metric.name)).toEqual([
      'median_ttft_ms',
      'mean_ttft_ms',
      'std_ttft_ms',
      'p99_ttft_ms',
      'mean_tpot_ms',
      'median_tpot_ms',
      'std_tpot_ms',
      'p99_tpot_ms',
      'median_itl_ms',
      'mean_itl_ms',
      'std_itl_ms',
      'p99_itl_ms',
    ])
    for (const record of records) {
      expect(record.metric.benchmark_values).toEqual([result[record.metric.name]])
      expect(record.benchmark.name).toBe('vLLM benchmark')
      expect(record.model.name).toBeNull()
    }
    const [first] = records
    expect(first!.metric.extra_info).toMatchObject({
      completed: 6,
      ramp_up_strategy: 'linear',
      request_rate: 'inf',
      tensor_parallel_size: '2',
    })
    expect(first!.metric.extra_info).not.toHaveProperty('ttfts')
    expect(first!.benchmark.extra_info.args).toMatchObject({
      ramp_up_strategy: 'linear',
      num_prompts: '6',
      header: ['X-Team=[redacted]'],
      tensor_parallel_size: '2',
    })
    expect(JSON.stringify(records)).not.toContain('secret-team')
  })
})
