import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { startFakeHub } from './fake-hub.ts'
import { ROOT, readOnlyResult, runCli, test } from './helpers.ts'
import { writeParquet } from './parquet-writer.ts'

const SHAREGPT = join(ROOT, 'fixtures/datasets/sharegpt-small.json')

describe('servebench serve with the hub datasets', () => {
  test('sharegpt from a local file against the simulator', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--tokenizer',
      'cl100k_base',
      '--dataset-name',
      'sharegpt',
      '--dataset-path',
      SHAREGPT,
      '--num-prompts',
      '12',
      '--sharegpt-output-len',
      '8',
      '--disable-tqdm',
      '--save-result',
      '--save-detailed',
      '--result-dir',
      tmpDir,
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^Successful requests: {21}12 {8}$/m)
    const result = await readOnlyResult(tmpDir)
    expect(result.completed).toBe(12)
    expect(result.output_lens).toEqual(Array(12).fill(8))
  })

  test('hf from a fake hub (parquet export) against the simulator', async ({ sim, tmpDir }) => {
    const rows = Array.from({ length: 6 }, (_, i) => ({
      question: `What is ${i} plus ${i}, written out as a full sentence?`,
      answer: `${i} plus ${i} is ${2 * i}.`,
    }))
    const hub = await startFakeHub({
      repos: [
        {
          type: 'dataset',
          id: 'org/qa',
          commit: 'a'.repeat(40),
          files: {},
          parquetExport: { 'default/train/0000.parquet': writeParquet(rows) },
        },
      ],
    })
    try {
      const env = {
        HF_HOME: tmpDir,
        HF_HUB_CACHE: '',
        HF_HUB_OFFLINE: '',
        HF_ENDPOINT: hub.endpoint,
        SERVEBENCH_HF_DATASETS_SERVER: hub.datasetsServer,
      }
      const args = [
        'serve',
        '--base-url',
        sim.url,
        '--tokenizer',
        'cl100k_base',
        '--dataset-name',
        'hf',
        '--dataset-path',
        'org/qa',
        '--hf-output-len',
        '5',
        '--num-prompts',
        '6',
        '--disable-tqdm',
      ]
      const run = await runCli(args, { env })
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/^Successful requests:\s+6\s*$/m)
      expect(run.stdout).toMatch(/^Total generated tokens:\s+30\s*$/m)
      const offline = await runCli(args, { env: { ...env, HF_HUB_OFFLINE: '1' } })
      expect(offline.code).toBe(0)
    } finally {
      await hub.close()
    }
  })

  test('hf without --dataset-path is a usage error naming the flag', async () => {
    const run = await runCli(['serve', '--tokenizer', 'cl100k_base', '--dataset-name', 'hf'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      '--dataset-path is required with --dataset-name hf: a dataset id such as openai/gsm8k, or a local file or folder',
    )
  })
})
