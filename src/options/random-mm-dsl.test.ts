import { describe, expect, it } from 'vitest'
import { datasets, endpoint } from '../vitest/runtime/builders.ts'
import { benchConfigFromDsl } from './from-dsl.ts'

const ctx = { name: 'mm', defaultBaseUrl: 'http://127.0.0.1:9', simulator: true }

describe('datasets.randomMm()', () => {
  it('resolves to the random-mm config with Python defaults', () => {
    const config = benchConfigFromDsl(
      {
        endpoint: endpoint({ backend: 'openai-chat' }),
        dataset: datasets.randomMm({ numPrompts: 5, inputLen: 64 }),
      },
      ctx,
    )
    expect(config.numPrompts).toBe(5)
    expect(config.dataset).toEqual({
      kind: 'random-mm',
      inputLen: 64,
      outputLen: 128,
      prefixLen: 0,
      rangeRatio: { input: 0, output: 0 },
      baseItemsPerRequest: 1,
      numMmItemsRangeRatio: 0,
      limitMmPerPrompt: { image: 255, video: 1 },
      buckets: [
        { height: 256, width: 256, numFrames: 1, probability: 0.5 },
        { height: 720, width: 1280, numFrames: 1, probability: 0.5 },
        { height: 720, width: 1280, numFrames: 16, probability: 0 },
      ],
      enableMultimodalChat: false,
    })
  })

  it('reports every bad field with its suite path', () => {
    expect(() =>
      benchConfigFromDsl(
        {
          endpoint: endpoint({ backend: 'openai' }),
          dataset: datasets.randomMm({
            numMmItemsRangeRatio: 2,
            buckets: '{(1,2): 1}',
            limitMmPerPrompt: { image: -1 },
          }),
        },
        ctx,
      ),
    ).toThrow(
      [
        'Invalid configuration (4 issues):',
        "  - serveBench('mm').dataset random-mm needs endpoint({ backend: 'openai-chat' }) (it sends images and videos in chat messages); got endpoint({ backend: 'openai' })",
        "  - serveBench('mm').dataset.numMmItemsRangeRatio must be in [0, 1] (got 2)",
        `  - serveBench('mm').dataset.limitMmPerPrompt "image" must be an integer ≥ 0 (got -1)`,
        `  - serveBench('mm').dataset.buckets has a bad entry "(1,2): 1": each is (height, width, frames): weight, with integers and a weight ≥ 0`,
      ].join('\n'),
    )
  })

  it('takes video buckets as a list, and names a bad one by its entry', () => {
    const buckets = [
      { height: 8, width: 16, numFrames: 1, probability: 0.5 },
      { height: 8, width: 16, numFrames: 4, probability: 0.5 },
    ]
    const config = benchConfigFromDsl(
      { endpoint: endpoint({ backend: 'openai-chat' }), dataset: datasets.randomMm({ buckets }) },
      ctx,
    )
    expect(config.dataset).toMatchObject({ buckets, limitMmPerPrompt: { image: 255, video: 1 } })
    expect(() =>
      benchConfigFromDsl(
        {
          endpoint: endpoint({ backend: 'openai-chat' }),
          dataset: datasets.randomMm({ buckets: [buckets[0]!, { ...buckets[1]!, numFrames: 0 }] }),
        },
        ctx,
      ),
    ).toThrow(
      `serveBench('mm').dataset.buckets has a bad entry "(8, 16, 0): 0.5": frames must be an integer from 1 to 65535 (got 0)`,
    )
  })
})
