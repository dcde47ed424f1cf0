import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { CHAT_BODY_KEYS } from '../../../test/backends/backend-request.ts'
import { type FakeHub, startFakeHub, stubHubEnv } from '../../../test/fake-hub.ts'
import { QWEN3_JSON as QWEN3, sharedTokenizer } from '../../../test/tokenizers.ts'
import { buildChatBody } from '../../backends/chat.ts'
import { applyChatTemplate } from '../../tokenizer/chat-template.ts'
import type { Tokenizer } from '../../tokenizer/index.ts'
import type { HfDatasetConfig } from './hf.ts'
import { generateHf } from './hf.ts'
import { BFCL_ID, translateSchema } from './hf-bfcl.ts'

const FIXTURES = resolve(import.meta.dirname, '../../../fixtures/datasets/bfcl')
const COMMIT = 'b'.repeat(40)

const bfcl = (overrides: Partial<HfDatasetConfig> = {}): HfDatasetConfig => ({
  kind: 'hf',
  path: BFCL_ID,
  disableShuffle: true,
  noOversample: true,
  ...overrides,
})

let qwen: Tokenizer
let tiktoken: Tokenizer
beforeAll(async () => {
  qwen = await sharedTokenizer(QWEN3)
  tiktoken = await sharedTokenizer('cl100k_base')
})

describe('hf BFCL (gorilla-llm/Berkeley-Function-Calling-Leaderboard)', { timeout: 30_000 }, () => {
  let home: string
  let hub: FakeHub
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servebench-bfcl-'))
    const files: Record<string, Buffer> = {}
    for (const name of await readdir(FIXTURES)) files[name] = await readFile(join(FIXTURES, name))
    hub = await startFakeHub({
      repos: [{ type: 'dataset', id: BFCL_ID, commit: COMMIT, files: { ...files, 'README.md': '# BFCL' } }],
    })
    stubHubEnv(hub, home)
  })
  afterEach(async () => {
    vi.unstubAllEnvs()
    await hub.close()
    await rm(home, { recursive: true, force: true })
  })

  it('downloads one file per default category and interleaves their first turns round-robin', async () => {
    const requests = await generateHf(bfcl(), {
      tokenizer: qwen,
      numPrompts: 20,
      seed: 0,
      backend: 'openai-chat',
    })
    expect(requests.map((r) => r.prompt.slice(0, 24))).toEqual([
      'Find the area of a trian',
      'Can you check the weathe',
      'What is the 3th Fibonacc',
      'Find the area of a trian',
      'Can you check the weathe',
      'What is the 4th Fibonacc',
      'Find the area of a trian',
      'Can you check the weathe',
      'Find the area of a trian',
    ])
    const downloads = hub.requests.filter((r) => r.startsWith('HEAD '))
    expect(downloads).toEqual([
      `HEAD /datasets/${BFCL_ID}/resolve/main/BFCL_v3_simple.json`,
      `HEAD /datasets/${BFCL_ID}/resolve/main/BFCL_v3_live_simple.json`,
      `HEAD /datasets/${BFCL_ID}/resolve/main/BFCL_v3_multiple.json`,
    ])
    // No datasets-server lookup: BFCL reads the repository's files.
    expect(hub.requests.some((r) => r.includes('/ds/'))).toBe(false)
  })

  it('sends the first turn as chat messages and the functions as OpenAI tools with tool_choice auto', async () => {
    const [, live] = await generateHf(bfcl(), {
      tokenizer: qwen,
      numPrompts: 2,
      seed: 0,
      backend: 'openai-chat',
    })
    expect(live!.chatMessages).toEqual([
      { role: 'system', content: 'You are a helpful travel assistant.' },
      {
        role: 'user',
        content: 'Can you check the weather in city number 0 for the next 2 days, in celsius?',
      },
    ])
    expect(live!.prompt).toBe('Can you check the weather in city number 0 for the next 2 days, in celsius?')
    expect(live!.expectedOutputLen).toBe(512)
    expect(live!.requestOverrides).toEqual({
      tool_choice: 'auto',
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather_forecast',
            description: 'Retrieves the weather forecast.',
            parameters: {
              type: 'object',
              properties: {
                city: { type: 'string', description: 'The city name.' },
                days: { type: 'integer' },
                temperature: { type: 'number', description: 'A threshold.' },
                coords: { type: 'array', items: { type: 'number' } },
                extra: { type: 'string' },
              },
              required: ['city'],
            },
          },
        },
      ],
    })
    const tools = live!.requestOverrides!.tools as unknown[]
    const rendered = applyChatTemplate(qwen, live!.chatMessages as Array<{ role: string; content: string }>, {
      tools,
      addGenerationPrompt: true,
    })
    expect(rendered).toContain('get_weather_forecast')
    expect(live!.promptLen).toBe((await qwen.encode(rendered, { addSpecialTokens: true })).length)
  })

  it('the tools win over --extra-body in the chat body, after ignore_eos', async () => {
    const [request] = await generateHf(bfcl(), {
      tokenizer: qwen,
      numPrompts: 1,
      seed: 0,
      backend: 'openai-chat',
    })
    const body = buildChatBody({
      url: 'http://127.0.0.1/v1/chat/completions',
      requestId: 'r0',
      model: 'm',
      prompt: request!.prompt,
      chatMessages: request!.chatMessages!,
      requestOverrides: request!.requestOverrides!,
      promptLen: request!.promptLen,
      outputLen: request!.expectedOutputLen,
      ignoreEos: true,
      extraBody: { tools: [], tool_choice: 'none', temperature: 0 },
      headers: {},
    })
    expect(Object.keys(body)).toEqual([...CHAT_BODY_KEYS, 'tools', 'tool_choice', 'temperature'])
    expect(body.messages).toEqual(request!.chatMessages)
    expect(body.tool_choice).toBe('auto')
    expect((body.tools as Array<{ function: { name: string } }>)[0]!.function.name).toBe(
      'calculate_triangle_area',
    )
    expect(body.temperature).toBe(0)
    expect(body.max_completion_tokens).toBe(512)
  })

  it('takes --bfcl-categories and --hf-output-len, and counts message texts without a chat template', async () => {
    const requests = await generateHf(bfcl({ bfclCategories: ['multiple'], outputLen: 64 }), {
      tokenizer: tiktoken,
      numPrompts: 5,
      seed: 0,
      backend: 'openai-chat',
    })
    expect(requests).toHaveLength(2)
    expect(requests.map((r) => r.expectedOutputLen)).toEqual([64, 64])
    const first = requests[0]!
    expect(first.promptLen).toBe((await tiktoken.encode(first.prompt, { addSpecialTokens: true })).length)
    const tools = first.requestOverrides!.tools as Array<{ function: { name: string; parameters: unknown } }>
    expect(tools.map((t) => t.function.name)).toEqual(['math.fibonacci', 'unit.convert'])
    expect(tools[1]!.function.parameters).toEqual({
      type: 'object',
      properties: {
        value: { type: 'number' },
        options: { type: 'object', properties: { precision: { type: 'integer' } } },
      },
      required: ['value'],
    })
  })

  it('is reproducible for a seed and oversamples unless noOversample', async () => {
    const run = (seed: number) =>
      generateHf(bfcl({ disableShuffle: false, noOversample: false }), {
        tokenizer: tiktoken,
        numPrompts: 12,
        seed,
        backend: 'openai-chat',
      })
    const a = await run(5)
    expect(a).toHaveLength(12)
    expect(await run(5)).toEqual(a)
    expect((await run(6)).map((r) => r.prompt)).not.toEqual(a.map((r) => r.prompt))
  })

  it('reads a local folder of BFCL files with --hf-name', async () => {
    const requests = await generateHf(bfcl({ path: FIXTURES, hfName: BFCL_ID, bfclCategories: ['simple'] }), {
      tokenizer: tiktoken,
      numPrompts: 10,
      seed: 0,
      backend: 'openai-chat',
    })
    expect(requests).toHaveLength(4)
    expect(hub.requests).toEqual([])
  })

  it('names a missing category, and refuses a backend other than openai-chat', async () => {
    await expect(
      generateHf(bfcl({ bfclCategories: ['simple', 'nope'] }), {
        tokenizer: tiktoken,
        numPrompts: 1,
        seed: 0,
        backend: 'openai-chat',
      }),
    ).rejects.toThrow(
      `hf: BFCL category "nope" not found: ${BFCL_ID} has no BFCL_v3_nope.json; check --bfcl-categories (default: simple,live_simple,multiple)`,
    )
    await expect(
      generateHf(bfcl({ path: FIXTURES, hfName: BFCL_ID, bfclCategories: ['nope'] }), {
        tokenizer: tiktoken,
        numPrompts: 1,
        seed: 0,
        backend: 'openai-chat',
      }),
    ).rejects.toThrow(`hf: BFCL category "nope" not found: ${FIXTURES} has no BFCL_v3_nope.json`)
    await expect(
      generateHf(bfcl(), { tokenizer: tiktoken, numPrompts: 1, seed: 0, backend: 'openai' }),
    ).rejects.toThrow(
      `hf: ${BFCL_ID} needs --backend openai-chat (it sends each request's tool schemas in chat completions); got --backend openai`,
    )
    await expect(generateHf(bfcl(), { tokenizer: tiktoken, numPrompts: 1, seed: 0 })).rejects.toThrow(
      `hf: ${BFCL_ID} needs --backend openai-chat (it sends each request's tool schemas in chat completions); got --backend vllm`,
    )
  })
})

describe('translateSchema', () => {
  it("renames BFCL's type names at every depth and leaves a property named type alone", () => {
    expect(
      translateSchema({
        type: 'dict',
        properties: { type: { type: 'string' }, list: { type: 'array', items: { type: 'tuple' } } },
        enum: ['dict'],
      }),
    ).toEqual({
      type: 'object',
      properties: { type: { type: 'string' }, list: { type: 'array', items: { type: 'array' } } },
      enum: ['dict'],
    })
  })
})
