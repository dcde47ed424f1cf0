import { describe, expect, it } from 'vitest'
import { datasets } from '../vitest/runtime/builders.ts'
import { benchConfigFromDsl } from './from-dsl.ts'

const ctx = { name: 'hub', defaultBaseUrl: 'http://127.0.0.1:4321', simulator: true }

describe('hub dataset DSL', () => {
  it('datasets.sharegpt() resolves to the hub download with Python defaults', () => {
    const config = benchConfigFromDsl({ dataset: datasets.sharegpt({ numPrompts: 20 }) }, ctx)
    expect(config.dataset).toEqual({ kind: 'sharegpt', disableShuffle: false, noOversample: false })
    expect(config.numPrompts).toBe(20)
  })

  it('datasets.hf() carries every option', () => {
    const config = benchConfigFromDsl(
      {
        dataset: datasets.hf({
          path: 'openai/gsm8k',
          subset: 'main',
          split: 'test',
          outputLen: 64,
          disableShuffle: true,
        }),
      },
      ctx,
    )
    expect(config.dataset).toEqual({
      kind: 'hf',
      path: 'openai/gsm8k',
      subset: 'main',
      split: 'test',
      outputLen: 64,
      disableShuffle: true,
      noOversample: false,
    })
  })

  it('names the bad field', () => {
    expect(() => benchConfigFromDsl({ dataset: datasets.sharegpt({ outputLen: 0 }) }, ctx)).toThrow(
      "serveBench('hub').dataset.outputLen must be at least 1 (got 0)",
    )
    expect(() => benchConfigFromDsl({ dataset: datasets.hf({ path: '' }) }, ctx)).toThrow(
      "serveBench('hub').dataset.path is required with datasets.hf(): a dataset id such as openai/gsm8k, or a local file or folder",
    )
  })
})
