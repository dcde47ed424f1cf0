import { fileURLToPath } from 'node:url'
import { datasets, endpoint, serveBench } from 'servebench'
import { describe, expect } from 'vitest'

const fixture = (name: string): string =>
  fileURLToPath(new URL(`../../../fixtures/datasets/${name}`, import.meta.url))
const completions = endpoint({ backend: 'openai' })

// One tiny run per dataset builder; the parent test reads each result file and checks `completed`.
describe('datasets', () => {
  serveBench('random', { dataset: datasets.random({ inputLen: 16, outputLen: 4, numPrompts: 4 }) }, (r) => {
    expect(r.completed).toBe(4)
  })

  serveBench(
    'randomMm',
    {
      endpoint: endpoint({ backend: 'openai-chat' }),
      dataset: datasets.randomMm({
        inputLen: 16,
        outputLen: 4,
        numPrompts: 3,
        buckets: [{ height: 32, width: 32, numFrames: 1, probability: 1 }],
      }),
    },
    (r) => expect(r.completed).toBe(3),
  )

  serveBench(
    'randomRerank',
    {
      endpoint: endpoint({ backend: 'vllm-rerank' }),
      // Four documents in batches of two: two rerank requests.
      dataset: datasets.randomRerank({ inputLen: 32, batchSize: 2, numPrompts: 4 }),
    },
    (r) => expect(r.completed).toBe(2),
  )

  serveBench(
    'sharegpt',
    {
      endpoint: completions,
      dataset: datasets.sharegpt({ path: fixture('sharegpt-small.json'), outputLen: 4, numPrompts: 4 }),
    },
    (r) => expect(r.completed).toBe(4),
  )

  serveBench(
    'hf',
    {
      endpoint: completions,
      dataset: datasets.hf({ path: process.env.SB_HF_DATASET ?? 'org/qa', outputLen: 4, numPrompts: 4 }),
    },
    (r) => expect(r.completed).toBe(4),
  )

  serveBench(
    'custom',
    {
      endpoint: completions,
      dataset: datasets.custom({ path: fixture('custom.jsonl'), outputLen: 4, numPrompts: 4 }),
    },
    (r) => expect(r.completed).toBe(4),
  )

  serveBench(
    'sonnet',
    {
      endpoint: completions,
      dataset: datasets.sonnet({ inputLen: 60, prefixLen: 20, outputLen: 4, numPrompts: 3 }),
    },
    (r) => expect(r.completed).toBe(3),
  )

  serveBench(
    'prefixRepetition',
    {
      endpoint: completions,
      dataset: datasets.prefixRepetition({
        prefixLen: 8,
        suffixLen: 8,
        numPrefixes: 2,
        outputLen: 4,
        numPrompts: 4,
      }),
    },
    (r) => expect(r.completed).toBe(4),
  )

  serveBench(
    'burstgpt',
    { endpoint: completions, dataset: datasets.burstgpt({ path: fixture('burstgpt.csv'), numPrompts: 3 }) },
    (r) => expect(r.completed).toBe(3),
  )

  serveBench(
    'speedBench',
    {
      endpoint: completions,
      dataset: datasets.speedBench({ path: fixture('speed-bench'), outputLen: 4, numPrompts: 3 }),
    },
    (r) => expect(r.completed).toBe(3),
  )

  serveBench(
    'specBench',
    {
      endpoint: completions,
      dataset: datasets.specBench({
        path: fixture('spec-bench/question.jsonl'),
        outputLen: 4,
        numPrompts: 3,
      }),
    },
    (r) => expect(r.completed).toBe(3),
  )

  serveBench(
    'customImage',
    {
      endpoint: endpoint({ backend: 'openai-chat' }),
      dataset: datasets.customImage({
        path: fixture('custom-image/images.jsonl'),
        outputLen: 4,
        ensureClientSideData: true,
        numPrompts: 3,
      }),
    },
    (r) => expect(r.completed).toBe(3),
  )

  serveBench(
    'customAudio',
    {
      endpoint: endpoint({ backend: 'openai-audio' }),
      dataset: datasets.customAudio({
        path: fixture('custom-audio/data.jsonl'),
        outputLen: 4,
        numPrompts: 3,
      }),
    },
    (r) => expect(r.completed).toBe(3),
  )

  serveBench(
    'timedTrace',
    {
      endpoint: completions,
      dataset: datasets.timedTrace({
        path: fixture('timed-trace.jsonl'),
        secMultiplier: 0.0005,
        numPrompts: 5,
      }),
    },
    (r) => expect(r.completed).toBe(5),
  )
})
