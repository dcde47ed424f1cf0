import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { LLAMA3_JSON as LLAMA3, QWEN3_JSON as QWEN3, sharedTokenizer } from '../../test/tokenizers.ts'
import type { HfDatasetConfig } from './hub/hf.ts'
import { generateHf } from './hub/hf.ts'
import { generateRequests } from './index.ts'
import type { CustomDatasetConfig } from './local/custom.ts'
import type { SonnetDatasetConfig } from './local/sonnet.ts'

const CUSTOM = resolve(import.meta.dirname, '../../fixtures/datasets/custom.jsonl')

const custom = (overrides: Partial<CustomDatasetConfig> = {}): CustomDatasetConfig => ({
  kind: 'custom',
  path: CUSTOM,
  outputLen: 16,
  skipChatTemplate: false,
  disableShuffle: true,
  noOversample: true,
  ...overrides,
})
const sonnet: SonnetDatasetConfig = { kind: 'sonnet', inputLen: 120, outputLen: 8, prefixLen: 40 }

async function tmpJsonl(rows: object[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'servebench-chat-')), 'rows.jsonl')
  await writeFile(path, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`)
  return path
}

describe('client-side chat templates in the datasets', { timeout: 30_000 }, () => {
  it('custom: renders each prompt with the template and counts the templated prompt', async () => {
    const tokenizer = await sharedTokenizer(QWEN3)
    const raw = await generateRequests(custom({ skipChatTemplate: true }), {
      tokenizer,
      numPrompts: 3,
      seed: 0,
    })
    const templated = await generateRequests(custom(), { tokenizer, numPrompts: 3, seed: 0 })
    templated.forEach((request, i) => {
      expect(request.prompt).toBe(`<|im_start|>user\n${raw[i]!.prompt}<|im_end|>\n<|im_start|>assistant\n`)
    })
    for (const request of templated) {
      expect(request.promptLen).toBe(
        (await tokenizer.encode(request.prompt, { addSpecialTokens: true })).length,
      )
    }
    // The template adds its headers: 8 tokens under qwen3.
    expect(templated.map((r, i) => r.promptLen - raw[i]!.promptLen)).toEqual([8, 8, 8])
  })

  it('custom: passes --chat-template-kwargs, and leaves chat backends to the server', async () => {
    const tokenizer = await sharedTokenizer(QWEN3)
    const [noThinking] = await generateRequests(custom(), {
      tokenizer,
      numPrompts: 1,
      seed: 0,
      chatTemplateKwargs: { enable_thinking: false },
    })
    expect(noThinking!.prompt.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true)
    const [chat] = await generateRequests(custom(), {
      tokenizer,
      numPrompts: 1,
      seed: 0,
      backend: 'openai-chat',
    })
    expect(chat!.prompt).not.toContain('<|im_start|>')
  })

  it('custom: runs without a tokenizer, each prompt counting 1 token', async () => {
    const requests = await generateRequests(custom(), { numPrompts: 4, seed: 0 })
    expect(requests).toHaveLength(4)
    expect(requests.every((r) => r.promptLen === 1 && !r.prompt.includes('<|'))).toBe(true)
  })

  it('names the dataset when another one is asked for without a tokenizer', async () => {
    await expect(generateRequests(sonnet, { numPrompts: 1, seed: 0 })).rejects.toThrow(
      'sonnet: needs a tokenizer; only the custom dataset runs with --skip-tokenizer-init',
    )
  })

  it('sonnet: counts lengths on the templated prompt; sends it templated except to a chat backend', async () => {
    const tokenizer = await sharedTokenizer(LLAMA3)
    const completions = await generateRequests(sonnet, { tokenizer, numPrompts: 3, seed: 1 })
    const chat = await generateRequests(sonnet, { tokenizer, numPrompts: 3, seed: 1, backend: 'openai-chat' })
    for (const [i, request] of completions.entries()) {
      expect(request.prompt.startsWith('<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n')).toBe(
        true,
      )
      expect(request.promptLen).toBe(
        (await tokenizer.encode(request.prompt, { addSpecialTokens: true })).length,
      )
      expect(request.promptLen).toBeLessThanOrEqual(sonnet.inputLen)
      // Same draws, same counts; the chat backend gets the raw prompt.
      expect(chat[i]!.promptLen).toBe(request.promptLen)
      expect(request.prompt).toContain(chat[i]!.prompt.trim())
      expect(chat[i]!.prompt.startsWith('Pick as many lines')).toBe(true)
    }
  })

  it('warns once and sends raw prompts when the tokenizer has no template', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const tokenizer = await sharedTokenizer('cl100k_base')
      const requests = await generateRequests(custom(), { tokenizer, numPrompts: 2, seed: 0 })
      await generateRequests(custom(), { tokenizer, numPrompts: 2, seed: 0 })
      expect(requests[0]!.prompt).not.toContain('<|')
      expect(warn.mock.calls.map((c) => c[0])).toEqual([
        'servebench: custom: the tokenizer "cl100k_base" has no chat template, so prompts are sent without one ' +
          '(--skip-chat-template silences this note)',
      ])
    } finally {
      warn.mockRestore()
    }
  })

  it('refuses --chat-template-kwargs that no template would receive, rather than dropping them', async () => {
    const tokenizer = await sharedTokenizer('cl100k_base')
    await expect(
      generateRequests(custom(), {
        tokenizer,
        numPrompts: 2,
        seed: 0,
        chatTemplateKwargs: { enable_thinking: false },
      }),
    ).rejects.toMatchObject({
      code: 'SERVEBENCH_CONFIG',
      message:
        '--chat-template-kwargs is given, but the tokenizer "cl100k_base" has no chat template to pass it to (custom prompts would be sent without one); name a tokenizer with a chat template, or drop the flag',
    })
  })

  it('hf: templates MT-Bench prompts unless skipChatTemplate', async () => {
    const tokenizer = await sharedTokenizer(QWEN3)
    const path = await tmpJsonl([
      { turns: ['Compose an engaging travel blog post about Hawaii.', 'Rewrite it.'] },
      { turns: ['Draft a professional email to a supervisor.', 'Shorten it.'] },
    ])
    const config: HfDatasetConfig = {
      kind: 'hf',
      path,
      hfName: 'philschmid/mt-bench',
      disableShuffle: true,
      noOversample: true,
    }
    const templated = await generateHf(config, { tokenizer, numPrompts: 2, seed: 0 })
    expect(templated.map((r) => r.prompt)).toEqual([
      '<|im_start|>user\nCompose an engaging travel blog post about Hawaii.<|im_end|>\n<|im_start|>assistant\n',
      '<|im_start|>user\nDraft a professional email to a supervisor.<|im_end|>\n<|im_start|>assistant\n',
    ])
    expect(templated.map((r) => r.expectedOutputLen)).toEqual([256, 256])
    for (const request of templated) {
      expect(request.promptLen).toBe(
        (await tokenizer.encode(request.prompt, { addSpecialTokens: true })).length,
      )
    }
    const raw = await generateHf({ ...config, skipChatTemplate: true }, { tokenizer, numPrompts: 2, seed: 0 })
    expect(raw[0]!.prompt).toBe('Compose an engaging travel blog post about Hawaii.')
  })

  it('hf: filters Blazedit rows by norm_distance, and names a row without one', async () => {
    const tokenizer = await sharedTokenizer(QWEN3)
    const rows = [0.1, 0.4, 0.7, 0.9].map((d, i) => ({
      code: `def f${i}():\n    return ${i}\n`,
      change_request: `Return ${i + 1} instead.`,
      norm_distance: d,
    }))
    const base: HfDatasetConfig = {
      kind: 'hf',
      path: await tmpJsonl(rows),
      hfName: 'vdaita/edit_5k_char',
      disableShuffle: true,
      noOversample: true,
      skipChatTemplate: true,
    }
    const all = await generateHf(base, { tokenizer, numPrompts: 10, seed: 0 })
    expect(all).toHaveLength(4)
    const mid = await generateHf(
      { ...base, blazeditDistance: { min: 0.3, max: 0.8 } },
      { tokenizer, numPrompts: 10, seed: 0 },
    )
    expect(mid.map((r) => r.prompt.match(/def (f\d)/)![1])).toEqual(['f1', 'f2'])
    expect(mid.every((r) => r.expectedOutputLen === 4000)).toBe(true)

    const missing = { ...base, path: await tmpJsonl([{ code: 'x = 1', change_request: 'y' }]) }
    await expect(
      generateHf(
        { ...missing, blazeditDistance: { min: 0, max: 0.5 } },
        { tokenizer, numPrompts: 1, seed: 0 },
      ),
    ).rejects.toThrow(
      'hf: vdaita/edit_5k_char: a row has no numeric norm_distance (got nothing), which --blazedit-min-distance ' +
        'and --blazedit-max-distance filter on',
    )
  })
})
