import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { ConfigError } from '../src/errors.ts'
import { benchConfigFromDsl } from '../src/options/from-dsl.ts'
import { resultForFile } from '../src/report/result/result-json.ts'
import { validateModeFile } from '../src/report/result/schema/modes.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'
import { datasets, endpoint } from '../src/vitest/runtime/builders.ts'
import { ROOT, runCli, test } from './helpers.ts'
import { startRecordingProxy } from './server-helpers.ts'

const SHAREGPT = join(ROOT, 'fixtures/datasets/sharegpt-multi-turn.json')
const HF_CHAT = join(ROOT, 'fixtures/datasets/hf-chat-multi-turn.jsonl')
const CHAT = ['--backend', 'openai-chat', '--tokenizer', 'cl100k_base', '--disable-tqdm', '--multi-turn']

interface ChatBody {
  messages: Array<{ role: string; content: unknown }>
  max_completion_tokens?: number
  min_tokens?: number
}

describe('multi-turn over real conversations', () => {
  test('sharegpt: each turn carries the history and asks for the reply length; --multi-turn-max-turns caps', async ({
    sim,
    tmpDir,
  }) => {
    const proxy = await startRecordingProxy(sim.url)
    try {
      const run = await runCli([
        'serve',
        '--base-url',
        proxy.url,
        ...CHAT,
        '--dataset-name',
        'sharegpt',
        '--dataset-path',
        SHAREGPT,
        '--num-prompts',
        '6',
        '--multi-turn-max-turns',
        '3',
        '--save-result',
        '--result-dir',
        tmpDir,
      ])
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      const calls = proxy.calls.filter((c) => c.path === '/v1/chat/completions')
      const bodies = calls.map((c) => JSON.parse(c.body) as ChatBody)
      // 2, 2, 3, 3, 3 and 3 turns: the entries of 2, 3 and 4 user turns, capped at 3.
      expect(bodies).toHaveLength(16)
      const sessions = new Map<string, ChatBody[]>()
      calls.forEach((c, i) => {
        const id = String(c.headers['x-session-id'])
        sessions.set(id, [...(sessions.get(id) ?? []), bodies[i]!])
      })
      expect([...sessions.values()].map((turns) => turns.length).sort()).toEqual([2, 2, 3, 3, 3, 3])
      for (const turns of sessions.values()) {
        // Turn t sends 2t + 1 messages: the history of user and assistant messages, then the new one.
        expect(turns.map((b) => b.messages.length)).toEqual(turns.map((_, t) => 2 * t + 1))
        const text = (b: ChatBody): string => JSON.stringify(b.messages.at(-1)!.content)
        expect(text(turns[0]!)).toMatch(/Question 1 about/)
        expect(turns.every((b) => b.messages.at(-1)!.role === 'user')).toBe(true)
        // The reply's token count bounds the output (no --sharegpt-output-len).
        expect(turns.every((b) => b.min_tokens === b.max_completion_tokens && (b.min_tokens ?? 0) > 3)).toBe(
          true,
        )
      }
      const [name] = await readdir(tmpDir)
      const result = JSON.parse(await readFile(join(tmpDir, name!), 'utf8')) as Record<string, unknown>
      expect(validateModeFile(result)).toEqual({ valid: true })
      expect(result).toMatchObject({ mode: 'multi_turn', num_conversations: 6, completed: 16, failed: 0 })
      expect((result.per_turn_metrics as Array<{ num_samples: number }>).map((t) => t.num_samples)).toEqual([
        6, 6, 4,
      ])
    } finally {
      await proxy.close()
    }
  })

  test('hf: a local chat dataset with {role, content} messages runs as conversations', async ({ sim }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      ...CHAT,
      '--dataset-name',
      'hf',
      '--dataset-path',
      HF_CHAT,
      '--num-prompts',
      '5',
      '--hf-output-len',
      '4',
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    // 5 rows of 2 or 3 user turns (the system message is skipped): 2+3+2+3+2.
    expect(run.stdout).toMatch(/^Successful requests: +12\b/m)
  })

  test('a dataset with no multi-message conversation is an error naming it', async ({ sim }) => {
    const small = join(ROOT, 'fixtures/datasets/sharegpt-small.json')
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      ...CHAT,
      '--dataset-name',
      'sharegpt',
      '--dataset-path',
      small,
      '--num-prompts',
      '2',
    ])
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain(
      `multi-turn: sharegpt ${small} has no conversation with 2 or more user turns (entries need 4 or more messages, alternating user and reply)`,
    )
  })
})

describe('the DSL: datasets.multiTurn({ source })', () => {
  test('runs conversations from datasets.sharegpt()', async ({ sim }) => {
    const config = benchConfigFromDsl(
      {
        endpoint: endpoint({ backend: 'openai-chat', tokenizer: 'cl100k_base' }),
        dataset: datasets.multiTurn({
          source: datasets.sharegpt({ path: SHAREGPT, outputLen: 5 }),
          numPrompts: 4,
          maxTurns: 2,
        }),
      },
      { name: 'sharegpt turns', defaultBaseUrl: sim.url },
    )
    expect(config.dataset).toMatchObject({ kind: 'sharegpt', path: SHAREGPT, outputLen: 5 })
    const { result } = await runBenchmark(config)
    expect(result).toMatchObject({ mode: 'multi_turn', completed: 8, conversations_completed: 4 })
    expect(validateModeFile(resultForFile(result, false))).toEqual({ valid: true })
  })

  test('names a bad source, a cap of 1 and prefix ratios with a source', () => {
    expect.assertions(2)
    try {
      benchConfigFromDsl(
        {
          endpoint: endpoint({ backend: 'openai-chat' }),
          dataset: datasets.multiTurn({
            source: datasets.sharegpt({ outputLen: 0 }),
            maxTurns: 1,
            prefixGlobalRatio: 0.2,
          }),
        },
        { name: 'bad', defaultBaseUrl: 'http://127.0.0.1:1' },
      )
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as ConfigError).issues.map((i) => `${i.path} ${i.message}`)).toEqual([
        "serveBench('bad').dataset.source.outputLen must be at least 1 (got 0)",
        "serveBench('bad').dataset.maxTurns must be 0 (no cap) or at least 2 for ShareGPT and hf conversations (got 1)",
        "serveBench('bad').dataset.prefixGlobalRatio needs datasets.multiTurn() without a source; sharegpt conversations carry their own text (got datasets.sharegpt())",
      ])
    }
  })
})

describe('the DSL: endpoint({ loraModules })', () => {
  test('round-robin adapters reach the simulator; a pooling backend and an empty name are refused', async ({
    sim,
  }) => {
    const config = benchConfigFromDsl(
      {
        endpoint: endpoint({
          tokenizer: 'cl100k_base',
          loraModules: ['l1', 'l2'],
          loraAssignment: 'round-robin',
        }),
        dataset: datasets.random({ inputLen: 16, outputLen: 4, numPrompts: 5 }),
      },
      { name: 'lora', defaultBaseUrl: sim.url },
    )
    expect(config.lora).toEqual({ modules: ['l1', 'l2'], assignment: 'round-robin' })
    await runBenchmark(config)
    expect(sim.stats().requestsByModel).toMatchObject({ l1: 3, l2: 2 })
    expect.assertions(4)
    try {
      benchConfigFromDsl(
        {
          endpoint: endpoint({ backend: 'openai-embeddings', loraModules: ['a'] }),
        },
        { name: 'lora', defaultBaseUrl: sim.url },
      )
    } catch (error) {
      expect((error as ConfigError).issues.map((i) => `${i.path} ${i.message}`)).toEqual([
        "serveBench('lora').endpoint.loraModules cannot be used with the openai-embeddings backend: pooling backends take no LoRA adapter",
      ])
    }
    try {
      benchConfigFromDsl(
        { endpoint: endpoint({ loraModules: [''] }) },
        { name: 'lora', defaultBaseUrl: sim.url },
      )
    } catch (error) {
      expect((error as ConfigError).issues.map((i) => `${i.path} ${i.message}`)).toEqual([
        `serveBench('lora').endpoint.loraModules names must not be empty (got "")`,
      ])
    }
  })
})
