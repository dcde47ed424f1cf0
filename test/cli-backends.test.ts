import { describe, expect } from 'vitest'
import { readOnlyResult, runCli, test } from './helpers.ts'

const COMMON = [
  '--tokenizer',
  'cl100k_base',
  '--num-prompts',
  '8',
  '--max-concurrency',
  '4',
  '--disable-tqdm',
]

const save = (dir: string): string[] => ['--save-result', '--save-detailed', '--result-dir', dir]

describe('servebench serve with the other backends', () => {
  test('openai-embeddings with batches: the pooling table and keys', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'openai-embeddings',
      '--random-input-len',
      '32',
      '--random-batch-size',
      '2',
      ...COMMON,
      ...save(tmpDir),
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^Successful requests: {21}4 {9}$/m)
    expect(run.stdout).toMatch(/^Input throughput \(inputs\/s\): {13}\d+\.\d\d/m)
    expect(run.stdout).toContain('----------------End-to-end Latency----------------')
    expect(run.stdout).not.toContain('Total generated tokens')
    const result = await readOnlyResult(tmpDir)
    expect(result).toMatchObject({ backend: 'openai-embeddings', completed: 4, total_input_sequences: 8 })
    expect(result).not.toHaveProperty('failed')
    expect(result.mean_e2el_ms as number).toBeGreaterThanOrEqual(40)
  })

  test('vllm-rerank with random-rerank', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'vllm-rerank',
      '--dataset-name',
      'random-rerank',
      '--random-input-len',
      '64',
      '--random-batch-size',
      '4',
      ...COMMON,
      ...save(tmpDir),
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    const result = await readOnlyResult(tmpDir)
    expect(result).toMatchObject({ backend: 'vllm-rerank', completed: 2, total_input_sequences: 8 })
  })

  test('openai-responses: the generation table with token figures', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'openai-responses',
      '--random-input-len',
      '32',
      '--random-output-len',
      '6',
      ...COMMON,
      ...save(tmpDir),
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^Total generated tokens: {18}48 {8}$/m)
    const result = await readOnlyResult(tmpDir)
    expect(result).toMatchObject({
      backend: 'openai-responses',
      completed: 8,
      failed: 0,
      total_output_tokens: 48,
    })
    expect(Math.min(...(result.ttfts as number[]))).toBeGreaterThanOrEqual(0.04)
  })

  test('openai-audio: RTFx printed and written', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'openai-audio',
      '--random-input-len',
      '100',
      '--random-output-len',
      '4',
      ...COMMON,
      ...save(tmpDir),
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^RTFx \(Inverse Real-Time Factor\): {9}\d+\.\d\d/m)
    const result = await readOnlyResult(tmpDir)
    // 100 prompt tokens are 2 s of audio each.
    expect(result.rtfx as number).toBeCloseTo(16 / (result.duration as number), 6)
  })

  test('--min-p with openai-responses is a usage error naming the flag', async ({ sim }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'openai-responses',
      '--min-p',
      '0.1',
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--min-p is not supported by --backend openai-responses')
  })
})
