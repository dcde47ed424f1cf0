import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { ROOT, readOnlyResult, runCli, test } from './helpers.ts'

const CUSTOM = join(ROOT, 'fixtures/datasets/custom.jsonl')

describe('servebench serve --skip-tokenizer-init', () => {
  test('runs custom on a generation backend: null tokenizer_id, no TTFT/TPOT/ITL statistics', async ({
    sim,
    tmpDir,
  }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--skip-tokenizer-init',
      '--dataset-name',
      'custom',
      '--dataset-path',
      CUSTOM,
      '--custom-output-len',
      '4',
      '--num-prompts',
      '5',
      '--disable-tqdm',
      '--save-result',
      '--save-detailed',
      '--result-dir',
      tmpDir,
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    expect(run.stdout).not.toContain('Time to First Token')
    const result = await readOnlyResult(tmpDir)
    expect(result.tokenizer_id).toBeNull()
    expect(result.completed).toBe(5)
    expect(Object.keys(result).filter((k) => /_(ttft|tpot|itl)_ms$/.test(k))).toEqual([])
    // The server's usage counts replace the dataset's 1-token placeholder.
    expect((result.input_lens as number[]).every((n) => n > 1)).toBe(true)
  })

  test('runs custom on a pooling backend (Python test_skip_tokenizer_init)', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'openai-embeddings',
      '--skip-tokenizer-init',
      '--dataset-name',
      'custom',
      '--dataset-path',
      CUSTOM,
      '--num-prompts',
      '3',
      '--num-warmups',
      '1',
      '--disable-tqdm',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(0)
    const result = await readOnlyResult(tmpDir)
    expect(result).toMatchObject({ tokenizer_id: null, completed: 3, num_warmups: 1 })
    expect(result).not.toHaveProperty('latencies')
    expect(result).not.toHaveProperty('queue_times')
  })

  test('is a usage error with a dataset that needs a tokenizer', async () => {
    const run = await runCli(['serve', '--skip-tokenizer-init', '--dataset-name', 'sonnet'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      '--skip-tokenizer-init cannot be used with --dataset-name sonnet: it needs a tokenizer',
    )
  })
})
