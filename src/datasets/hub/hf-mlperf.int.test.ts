import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { datasetRepo, type FakeHub, startFakeHub, stubHubEnv } from '../../../test/fake-hub.ts'
import { writeParquet } from '../../../test/parquet-writer.ts'
import { QWEN3_JSON as QWEN3, sharedTokenizer } from '../../../test/tokenizers.ts'
import { applyChatTemplate } from '../../tokenizer/chat-template.ts'
import type { Tokenizer } from '../../tokenizer/index.ts'
import type { HfDatasetConfig } from './hf.ts'
import { generateHf } from './hf.ts'

const LLAMA2 = 'mgoin/mlperf-inference-llama2-data'
const LLAMA31 = 'mgoin/mlperf-inference-llama3.1-data'

const SYSTEM = 'You are an AI assistant that helps people find information.'
const ROWS = Array.from({ length: 8 }, (_, i) => ({
  system_prompt: SYSTEM,
  question: `Question ${i}: summarise why the sky looks blue at noon but red at sunset, in ${i + 2} sentences.`,
  output: `Sunlight scatters off air molecules; shorter blue wavelengths scatter most (${i}). At sunset the light crosses more air.`,
}))
// Rows Python's is_valid_sequence drops: a prompt over 1024 tokens, and a reference under 4 tokens.
const LONG = {
  system_prompt: SYSTEM,
  question: 'word '.repeat(1100),
  output: 'A long answer for a long question.',
}
const SHORT = { system_prompt: SYSTEM, question: 'Answer with a single word: is water wet?', output: 'Yes' }

const mlperf = (overrides: Partial<HfDatasetConfig> = {}): HfDatasetConfig => ({
  kind: 'hf',
  path: LLAMA2,
  disableShuffle: true,
  noOversample: true,
  ...overrides,
})

let qwen: Tokenizer
beforeAll(async () => {
  qwen = await sharedTokenizer(QWEN3)
})

describe('hf MLPerf (mgoin/mlperf-inference-*)', { timeout: 30_000 }, () => {
  let home: string
  let hub: FakeHub
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servebench-mlperf-'))
    const shard = writeParquet([ROWS[0]!, LONG, SHORT, ...ROWS.slice(1)])
    hub = await startFakeHub({
      repos: [LLAMA2, LLAMA31].map((id) =>
        datasetRepo(id, {
          files: { 'README.md': '# mlperf' },
          parquetExport: { 'default/train/0000.parquet': shard },
        }),
      ),
    })
    stubHubEnv(hub, home)
  })
  afterEach(async () => {
    vi.unstubAllEnvs()
    await hub.close()
    await rm(home, { recursive: true, force: true })
  })

  const render = (row: (typeof ROWS)[number]) =>
    applyChatTemplate(
      qwen,
      [
        { role: 'system', content: row.system_prompt },
        { role: 'user', content: row.question },
      ],
      { addGenerationPrompt: true },
    )

  it('completions: renders system prompt and question with the chat template; output = reference tokens', async () => {
    const requests = await generateHf(mlperf(), { tokenizer: qwen, numPrompts: 20, seed: 0 })
    // The over-long prompt and the 1-token reference are dropped (is_valid_sequence).
    expect(requests).toHaveLength(8)
    for (const [i, request] of requests.entries()) {
      const row = ROWS[i]!
      expect(request.prompt).toBe(render(row))
      expect(request.prompt).toContain(`<|im_start|>system\n${SYSTEM}<|im_end|>`)
      expect(request.promptLen).toBe((await qwen.encode(render(row), { addSpecialTokens: true })).length)
      expect(request.expectedOutputLen).toBe((await qwen.encode(row.output)).length)
      expect(request.chatMessages).toBeUndefined()
    }
  })

  it('chat backends: sends the system and user messages, counting the rendered prompt', async () => {
    const [first] = await generateHf(mlperf({ path: LLAMA31 }), {
      tokenizer: qwen,
      numPrompts: 1,
      seed: 0,
      backend: 'openai-chat',
    })
    expect(first).toEqual({
      prompt: ROWS[0]!.question,
      promptLen: (await qwen.encode(render(ROWS[0]!), { addSpecialTokens: true })).length,
      expectedOutputLen: (await qwen.encode(ROWS[0]!.output)).length,
      chatMessages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: ROWS[0]!.question },
      ],
    })
  })

  it('a fixed --hf-output-len keeps the short reference but still drops the long prompt', async () => {
    const requests = await generateHf(mlperf({ outputLen: 64 }), { tokenizer: qwen, numPrompts: 20, seed: 0 })
    expect(requests).toHaveLength(9)
    expect(requests.every((r) => r.expectedOutputLen === 64)).toBe(true)
    expect(requests.some((r) => r.prompt.includes('is water wet'))).toBe(true)
  })

  it('--skip-chat-template sends system prompt and question raw (completions)', async () => {
    const [first] = await generateHf(mlperf({ skipChatTemplate: true }), {
      tokenizer: qwen,
      numPrompts: 1,
      seed: 0,
    })
    expect(first!.prompt).toBe(`${SYSTEM}\n\n${ROWS[0]!.question}`)
  })

  it('is reproducible for a seed and oversamples unless noOversample', async () => {
    const run = (seed: number) =>
      generateHf(mlperf({ disableShuffle: false, noOversample: false }), {
        tokenizer: qwen,
        numPrompts: 15,
        seed,
      })
    const a = await run(2)
    expect(a).toHaveLength(15)
    expect(await run(2)).toEqual(a)
    expect((await run(3)).map((r) => r.prompt)).not.toEqual(a.map((r) => r.prompt))
  })

  it('names the missing column', async () => {
    await hub.close()
    hub = await startFakeHub({
      repos: [
        datasetRepo(LLAMA2, {
          parquetExport: { 'default/train/0000.parquet': writeParquet([{ question: 'q', output: 'o' }]) },
        }),
      ],
    })
    vi.stubEnv('HF_ENDPOINT', hub.endpoint)
    vi.stubEnv('SERVEBENCH_HF_DATASETS_SERVER', hub.datasetsServer)
    await expect(generateHf(mlperf(), { tokenizer: qwen, numPrompts: 1, seed: 0 })).rejects.toThrow(
      `hf: ${LLAMA2}: an MLPerf row needs the string columns system_prompt, question, output; "system_prompt" is missing (the columns are: question, output)`,
    )
  })
})
