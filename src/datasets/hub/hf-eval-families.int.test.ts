import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { datasetRepo, type FakeHub, startFakeHub, stubHubEnv } from '../../../test/fake-hub.ts'
import { writeParquet } from '../../../test/parquet-writer.ts'
import { QWEN3_JSON, sharedTokenizer } from '../../../test/tokenizers.ts'
import type { Tokenizer } from '../../tokenizer/index.ts'
import type { HfDatasetConfig } from './hf.ts'
import { generateHf } from './hf.ts'

// Python: GSM8KDataset and HumanEvalDataset (vllm/benchmarks/datasets.py): the `question` (GSM8K)
// or `prompt` (HumanEval) column as one user message through the chat template, 256 output tokens,
// read from the test split (GSM8K: config `main`). Each export here also holds rows the
// datasets-server's own choice (config `default` or the first, split `train`) would read instead.
const gsm8k = (split: string, config: string, n: number): Array<{ question: string; answer: string }> =>
  Array.from({ length: n }, (_, i) => ({
    question: `${config}/${split} ${i}: Natalia sold clips to ${i + 40} friends. How many in all?`,
    answer: `She sold ${i + 40} clips. #### ${i + 40}`,
  }))
const humaneval = (split: string, n: number): Array<Record<string, string>> =>
  Array.from({ length: n }, (_, i) => ({
    task_id: `HumanEval/${i}`,
    prompt: `def ${split}_${i}(xs: list[int]) -> int:\n    """Return the sum of xs."""\n`,
    canonical_solution: '    return sum(xs)\n',
    test: 'def check(candidate):\n    assert candidate([1, 2]) == 3\n',
    entry_point: `${split}_${i}`,
  }))

const USER_TURN = /^<\|im_start\|>user\n([\s\S]*)<\|im_end\|>\n<\|im_start\|>assistant\n$/

describe('hf GSM8K and HumanEval', { timeout: 30_000 }, () => {
  let home: string
  let hub: FakeHub
  let tokenizer: Tokenizer
  beforeAll(async () => {
    tokenizer = await sharedTokenizer(QWEN3_JSON)
    home = await mkdtemp(join(tmpdir(), 'servebench-hf-eval-'))
    hub = await startFakeHub({
      repos: [
        {
          type: 'dataset',
          id: 'openai/gsm8k',
          commit: 'a'.repeat(40),
          files: { 'README.md': '# gsm8k' },
          parquetCommit: 'b'.repeat(40),
          parquetExport: {
            'main/train/0000.parquet': writeParquet(gsm8k('train', 'main', 4)),
            'main/test/0000.parquet': writeParquet(gsm8k('test', 'main', 3)),
            'default/train/0000.parquet': writeParquet(gsm8k('train', 'default', 4)),
            'socratic/test/0000.parquet': writeParquet(gsm8k('test', 'socratic', 3)),
          },
        },
        datasetRepo('openai/openai_humaneval', {
          files: { 'README.md': '# humaneval' },
          parquetCommit: 'd'.repeat(40),
          parquetExport: {
            'openai_humaneval/train/0000.parquet': writeParquet(humaneval('train', 2)),
            'openai_humaneval/test/0000.parquet': writeParquet(humaneval('test', 3)),
          },
        }),
      ],
    })
  }, 120_000)
  // The test config restores the environment after each test.
  beforeEach(() => stubHubEnv(hub, home))
  afterAll(async () => {
    vi.unstubAllEnvs()
    await hub?.close()
    await rm(home, { recursive: true, force: true })
  })

  const config = (path: string, extra: Partial<HfDatasetConfig> = {}): HfDatasetConfig => ({
    kind: 'hf',
    path,
    disableShuffle: true,
    noOversample: true,
    ...extra,
  })

  it('GSM8K: the main config, test split, each question templated as a user turn, 256 output tokens', async () => {
    const requests = await generateHf(config('openai/gsm8k'), { tokenizer, numPrompts: 3, seed: 0 })
    expect(requests.map((r) => USER_TURN.exec(r.prompt)?.[1])).toEqual(
      gsm8k('test', 'main', 3).map((row) => row.question),
    )
    for (const request of requests) {
      expect(request.expectedOutputLen).toBe(256)
      expect(request.promptLen).toBe(
        (await tokenizer.encode(request.prompt, { addSpecialTokens: true })).length,
      )
    }
  })

  it('GSM8K: --hf-subset, --hf-split, --hf-output-len and --skip-chat-template still win', async () => {
    const requests = await generateHf(
      config('openai/gsm8k', { subset: 'main', split: 'train', outputLen: 32, skipChatTemplate: true }),
      { tokenizer, numPrompts: 4, seed: 0 },
    )
    expect(requests.map((r) => r.prompt)).toEqual(gsm8k('train', 'main', 4).map((row) => row.question))
    expect(requests.every((r) => r.expectedOutputLen === 32)).toBe(true)
    const socratic = await generateHf(config('openai/gsm8k', { subset: 'socratic' }), {
      tokenizer,
      numPrompts: 1,
      seed: 0,
    })
    expect(socratic[0]!.prompt).toContain('socratic/test 0:')
  })

  it('HumanEval: the test split, each prompt templated, raw for a chat backend, 256 output tokens', async () => {
    const requests = await generateHf(config('openai/openai_humaneval'), {
      tokenizer,
      numPrompts: 3,
      seed: 0,
    })
    expect(requests.map((r) => USER_TURN.exec(r.prompt)?.[1])).toEqual(
      humaneval('test', 3).map((row) => row.prompt),
    )
    expect(requests.map((r) => r.expectedOutputLen)).toEqual([256, 256, 256])
    const chat = await generateHf(config('openai/openai_humaneval'), {
      tokenizer,
      numPrompts: 1,
      seed: 0,
      backend: 'openai-chat',
    })
    expect(chat[0]!.prompt).toBe(humaneval('test', 1)[0]!.prompt)
  })
})
