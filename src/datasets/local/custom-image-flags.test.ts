import { describe, expect, it } from 'vitest'
import { argvIssues, resolveArgv } from '../../../test/config-doors.ts'
import type { ConfigError } from '../../errors.ts'
import { benchConfigFromDsl } from '../../options/from-dsl.ts'
import { datasets, endpoint } from '../../vitest/runtime/builders.ts'

const CHAT = ['--backend', 'openai-chat']
/** A custom_image run of `i.jsonl` on openai-chat. */
const IMAGES = [...CHAT, '--dataset-name', 'custom_image', '--dataset-path', 'i.jsonl']
const BFCL = 'gorilla-llm/Berkeley-Function-Calling-Leaderboard'

describe('custom_image flags', () => {
  it('resolves the path, --custom-output-len and the image switches', () => {
    expect(resolveArgv(IMAGES).dataset).toEqual({
      kind: 'custom_image',
      path: 'i.jsonl',
      outputLen: 256,
      ensureClientSideData: false,
      enableMultimodalChat: false,
      disableShuffle: false,
      noOversample: false,
    })
    const config = resolveArgv([
      ...IMAGES,
      '--custom-output-len',
      '16',
      '--custom-ensure-client-side-data',
      '--enable-multimodal-chat',
      '--disable-shuffle',
      '--no-oversample',
    ])
    expect(config.dataset).toEqual({
      kind: 'custom_image',
      path: 'i.jsonl',
      outputLen: 16,
      ensureClientSideData: true,
      enableMultimodalChat: true,
      disableShuffle: true,
      noOversample: true,
    })
  })

  it('needs openai-chat, a path and an output length of at least 1', () => {
    expect(argvIssues(['--dataset-name', 'custom_image', '--custom-output-len', '-1'])).toEqual([
      '--dataset-name custom_image needs --backend openai-chat (it sends images in chat messages); got --backend openai',
      '--dataset-path is required with --dataset-name custom_image (a .jsonl file)',
      '--custom-output-len must be at least 1 (got -1)',
    ])
  })

  it('runs with --skip-tokenizer-init, as Python', () => {
    const config = resolveArgv([...IMAGES, '--skip-tokenizer-init'])
    expect(config.tokenizer.skipInit).toBe(true)
  })
})

describe('hf BFCL flags', () => {
  it('reads --bfcl-categories (trimmed, empty names dropped)', () => {
    const config = resolveArgv([
      ...CHAT,
      '--dataset-name',
      'hf',
      '--dataset-path',
      BFCL,
      '--bfcl-categories',
      ' simple, ,multiple,',
    ])
    expect(config.dataset).toMatchObject({ kind: 'hf', path: BFCL, bfclCategories: ['simple', 'multiple'] })
  })

  it('needs openai-chat, also for a local copy named with --hf-name', () => {
    expect(argvIssues(['--dataset-name', 'hf', '--dataset-path', BFCL])).toEqual([
      `--backend must be openai-chat with ${BFCL}: it sends each request's tool schemas in chat completions (got openai)`,
    ])
    expect(
      argvIssues([
        '--backend',
        'vllm',
        '--dataset-name',
        'hf',
        '--dataset-path',
        './bfcl',
        '--hf-name',
        BFCL,
      ]),
    ).toEqual([
      `--backend must be openai-chat with ${BFCL}: it sends each request's tool schemas in chat completions (got vllm)`,
    ])
  })
})

describe('datasets.customImage() and hf bfclCategories', () => {
  const ctx = { name: 'img', defaultBaseUrl: 'http://127.0.0.1:4321', simulator: true }

  it('resolves with the flag defaults', () => {
    const config = benchConfigFromDsl(
      {
        endpoint: endpoint({ backend: 'openai-chat' }),
        dataset: datasets.customImage({ path: 'i.jsonl', ensureClientSideData: true, numPrompts: 4 }),
      },
      ctx,
    )
    expect(config.dataset).toEqual({
      kind: 'custom_image',
      path: 'i.jsonl',
      outputLen: 256,
      ensureClientSideData: true,
      enableMultimodalChat: false,
      disableShuffle: false,
      noOversample: false,
    })
    expect(config.numPrompts).toBe(4)
  })

  it('names the backend, the path and the output length', () => {
    let issues: string[] = []
    try {
      benchConfigFromDsl({ dataset: datasets.customImage({ path: 'i.json', outputLen: 0 }) }, ctx)
    } catch (error) {
      issues = (error as ConfigError).issues.map((i) => `${i.path} ${i.message}`)
    }
    expect(issues).toEqual([
      "serveBench('img').dataset custom_image needs endpoint({ backend: 'openai-chat' }) (it sends images in chat messages); got endpoint({ backend: 'openai' })",
      'serveBench(\'img\').dataset.path must be a .jsonl file (got "i.json")',
      "serveBench('img').dataset.outputLen must be at least 1 (got 0)",
    ])
  })

  it('datasets.hf() carries bfclCategories and checks them', () => {
    const config = benchConfigFromDsl(
      {
        endpoint: endpoint({ backend: 'openai-chat' }),
        dataset: datasets.hf({ path: BFCL, bfclCategories: ['live_simple'] }),
      },
      ctx,
    )
    expect(config.dataset).toMatchObject({ kind: 'hf', path: BFCL, bfclCategories: ['live_simple'] })
    expect(() =>
      benchConfigFromDsl(
        {
          endpoint: endpoint({ backend: 'openai-chat' }),
          dataset: datasets.hf({ path: BFCL, bfclCategories: [''] }),
        },
        ctx,
      ),
    ).toThrow(
      "serveBench('img').dataset.bfclCategories must name at least one BFCL category, such as simple,live_simple",
    )
  })
})
