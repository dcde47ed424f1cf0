import { describe, expect } from 'vitest'
import type { BackendName, BenchConfig } from '../src/config/bench-config.ts'
import {
  DEFAULT_ENDPOINT_PATHS,
  DEFAULT_POOLING_PERCENTILE_METRICS,
  defaultBenchConfig,
} from '../src/config/defaults.ts'
import type { RandomDatasetConfig } from '../src/datasets/random/random.ts'
import type { RandomRerankDatasetConfig } from '../src/datasets/random/random-rerank.ts'
import { resultForFile } from '../src/report/result/result-json.ts'
import { validateResultFile } from '../src/report/result/schema/index.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'
import { test } from './helpers.ts'

// Fixed simulator timing (helpers.ts): the first token 40 ms after the body was read, then one every 10 ms.
// Only lower bounds here (a load only adds time); serial/backends-timings.test.ts checks the medians.
const TTFT_MS = 40

function configFor(backend: BackendName, baseUrl: string, pooling: boolean): BenchConfig {
  const config: BenchConfig = defaultBenchConfig()
  config.endpoint = {
    ...config.endpoint,
    backend,
    baseUrl,
    endpointPath: DEFAULT_ENDPOINT_PATHS[backend],
  }
  config.tokenizer.id = 'cl100k_base'
  const dataset = defaultBenchConfig().dataset
  dataset.inputLen = 50
  dataset.outputLen = 8
  config.dataset = dataset
  config.numPrompts = 12
  config.load.maxConcurrency = 4
  config.request.ignoreEos = !pooling
  if (pooling) config.percentileMetrics = [...DEFAULT_POOLING_PERCENTILE_METRICS]
  config.metricPercentiles = [50, 99]
  return config
}

function validFile(result: Record<string, unknown>): void {
  expect(validateResultFile(JSON.parse(JSON.stringify(resultForFile(result as never, true))))).toEqual({
    valid: true,
  })
  expect(validateResultFile(JSON.parse(JSON.stringify(resultForFile(result as never, false))))).toEqual({
    valid: true,
  })
}

describe('pooling backends against the simulator', () => {
  for (const backend of ['openai-embeddings', 'openai-embeddings-chat', 'vllm-pooling'] as const) {
    test(`${backend}: pooling keys, E2EL at least the simulated prefill time`, async ({ sim }) => {
      const { result, records, kind } = await runBenchmark(configFor(backend, sim.url, true))
      expect(kind).toBe('pooling')
      expect(records.every((r) => r.success)).toBe(true)
      validFile(result)
      expect(Object.keys(result).slice(11, 22)).toEqual([
        'duration',
        'completed',
        'total_input_tokens',
        'total_input_sequences',
        'request_throughput',
        'input_sequence_throughput',
        'total_token_throughput',
        'input_lens',
        'latencies',
        'queue_times',
        'errors',
      ])
      expect(result).not.toHaveProperty('failed')
      expect(result.completed).toBe(12)
      expect(result.total_input_sequences).toBe(12)
      // usage.prompt_tokens replaces the dataset's length; the simulator counts with the same encoding.
      expect(result.total_input_tokens).toBe((result.input_lens as number[]).reduce((a, b) => a + b, 0))
      expect(Math.min(...(result.latencies as number[]))).toBeGreaterThanOrEqual(TTFT_MS / 1000)
      expect(Object.keys(result).filter((k) => k.endsWith('_ms'))).toEqual([
        'mean_e2el_ms',
        'median_e2el_ms',
        'std_e2el_ms',
        'p50_e2el_ms',
        'p99_e2el_ms',
      ])
    })
  }
})

describe('batches and rerank against the simulator', () => {
  test('--random-batch-size sends several inputs per embeddings request', async ({ sim }) => {
    const config = configFor('openai-embeddings', sim.url, true)
    config.dataset = { ...(config.dataset as RandomDatasetConfig), batchSize: 5 }
    const { result, records } = await runBenchmark(config)
    validFile(result)
    // 12 prompts in batches of 5: 5 + 5 + 2 inputs.
    expect(records.map((r) => r.numInputSequences)).toEqual([5, 5, 2])
    expect(result.total_input_sequences).toBe(12)
    expect(result.input_sequence_throughput as number).toBeCloseTo(12 / (result.duration as number), 9)
  })

  test('random-rerank on vllm-rerank: one query, documents per request, E2EL per request', async ({
    sim,
  }) => {
    const config = configFor('vllm-rerank', sim.url, true)
    const dataset: RandomRerankDatasetConfig = {
      kind: 'random-rerank',
      inputLen: 64,
      rangeRatio: { input: 0, output: 0 },
      batchSize: 4,
      noReranker: false,
    }
    config.dataset = dataset
    const { result, records } = await runBenchmark(config)
    validFile(result)
    expect(records.map((r) => r.numInputSequences)).toEqual([4, 4, 4])
    expect(result.total_input_sequences).toBe(12)
    // vLLM's rerank usage has no prompt_tokens: input_lens are the dataset's (query + sep) × docs + Σ docs.
    for (const len of result.input_lens as number[]) expect(len).toBeLessThanOrEqual(4 * 64)
    expect(Math.min(...(result.latencies as number[]))).toBeGreaterThanOrEqual(TTFT_MS / 1000)
  })
})

describe('generation backends against the simulator', () => {
  test('openai-responses: TTFT and ITL follow the simulated timing, usage gives the output length', async ({
    sim,
  }) => {
    const { result, records, kind } = await runBenchmark(configFor('openai-responses', sim.url, false))
    expect(kind).toBe('generation')
    expect(records.map((r) => r.error)).toEqual(records.map(() => ''))
    validFile(result)
    expect(result.total_output_tokens).toBe(12 * 8)
    expect(Math.min(...(result.ttfts as number[]))).toBeGreaterThanOrEqual(TTFT_MS / 1000)
    expect((result.generated_texts as string[])[0]!.length).toBeGreaterThan(0)
    expect(result.rtfx).toBe(0)
  })

  test('openai-audio: transcription streams like chat and rtfx is audio seconds over the run', async ({
    sim,
  }) => {
    const { result, records } = await runBenchmark(configFor('openai-audio', sim.url, false))
    expect(records.map((r) => r.error)).toEqual(records.map(() => ''))
    validFile(result)
    expect(result.total_output_tokens).toBe(12 * 8)
    // 50 prompt tokens become 1 s of audio; the simulator prefills 50 tokens per audio second.
    expect(records.map((r) => r.inputAudioDurationS)).toEqual(records.map(() => 1))
    expect(result.input_lens).toEqual(records.map(() => 50))
    expect(result.rtfx as number).toBeCloseTo(12 / (result.duration as number), 9)
    expect(Math.min(...(result.ttfts as number[]))).toBeGreaterThanOrEqual(TTFT_MS / 1000)
  })
})
