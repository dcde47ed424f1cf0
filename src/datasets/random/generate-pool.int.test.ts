import { describe, expect, it } from 'vitest'
import { randomConfig } from '../../../test/random-configs.ts'
import { QWEN3_JSON as QWEN3, sharedTokenizer } from '../../../test/tokenizers.ts'
import { buildRandomPrompts, promptText, workerExecArgv } from './generate-pool.ts'
import type { RandomDatasetConfig } from './random.ts'
import { generateRandom } from './random.ts'

const pooledConfig = (overrides: Partial<RandomDatasetConfig> = {}): RandomDatasetConfig =>
  randomConfig({ inputLen: 96, prefixLen: 8, rangeRatio: { input: 0.5, output: 0.5 }, ...overrides })

// Each pooled run starts two threads that load the tokenizer (Qwen3: about a second each on a loaded machine).
describe.each([
  ['cl100k_base', 'cl100k_base'],
  ['qwen3', QWEN3],
])('prompt pool with %s', { timeout: 30_000 }, (_name, id) => {
  it('builds on worker threads exactly what one thread builds for the same seed', async () => {
    const tokenizer = await sharedTokenizer(id)
    const context = { tokenizer, numPrompts: 40, seed: 11 }
    const single = await generateRandom(pooledConfig(), context, { threads: 0 })
    const pooled = await generateRandom(pooledConfig(), context, { threads: 2 })
    expect(pooled).toHaveLength(40)
    expect(pooled).toEqual(single)
  })

  it('keeps token ids apart per request with --prompt-token-ids', async () => {
    const tokenizer = await sharedTokenizer(id)
    const context = { tokenizer, numPrompts: 12, seed: 5 }
    const config = pooledConfig({ promptTokenIds: true })
    const single = await generateRandom(config, context, { threads: 0 })
    const pooled = await generateRandom(config, context, { threads: 2 })
    expect(pooled).toEqual(single)
    for (const request of pooled) expect(request.promptTokenIds).toHaveLength(request.promptLen)
  })
})

describe('prompts built on workers', { timeout: 30_000 }, () => {
  it('stay UTF-8 until read, read as the same string each time, and take an assigned string', async () => {
    const tokenizer = await sharedTokenizer('cl100k_base')
    const context = { tokenizer, numPrompts: 6, seed: 2 }
    const [request] = await generateRandom(pooledConfig(), context, { threads: 1 })
    const descriptor = Object.getOwnPropertyDescriptor(request!, 'prompt')!
    expect(descriptor.get).toBeTypeOf('function')
    expect(descriptor.enumerable).toBe(true)
    const text = request!.prompt
    expect(text.length).toBeGreaterThan(0)
    expect(request!.prompt).toBe(text)
    expect(JSON.parse(JSON.stringify(request)).prompt).toBe(text)
    expect({ ...request! }.prompt).toBe(text)
    request!.prompt = 'replaced'
    expect(request!.prompt).toBe('replaced')
    expect(Object.getOwnPropertyDescriptor(request!, 'prompt')!.writable).toBe(true)
  })

  it('keep a leading byte-order mark and non-Latin-1 text through the UTF-8 buffer', async () => {
    expect(promptText(new TextEncoder().encode('\ufeffé 中文 😀'))).toBe('\ufeffé 中文 😀')
    expect(promptText('plain')).toBe('plain')
  })
})

describe('buildRandomPrompts', () => {
  it('reports a tokenizer the worker cannot load, naming it', async () => {
    const tokenizer = await sharedTokenizer('cl100k_base')
    const plan = { prefix: [], inputLens: Int32Array.of(4), offsets: Int32Array.of(0), promptTokenIds: false }
    await expect(
      buildRandomPrompts({ ...tokenizer, id: '/no/such/tokenizer.json' }, plan, { threads: 1 }),
    ).rejects.toThrow(
      /^random: a prompt worker failed: Cannot load a tokenizer for "\/no\/such\/tokenizer.json"/,
    )
  })
})

describe('workerExecArgv', () => {
  it('keeps the flags that load code, with their values, and drops per-process ones', () => {
    expect(
      workerExecArgv([
        '--trace-gc',
        '--import',
        'tsx',
        '--max-old-space-size=4096',
        '--conditions=development',
        '--input-type=module',
        '-r',
        './setup.cjs',
      ]),
    ).toEqual(['--import', 'tsx', '--conditions=development', '-r', './setup.cjs'])
  })
})
