import { describe, expect, expectTypeOf, test } from 'vitest'
import {
  type BenchResult,
  datasets,
  endpoint,
  isPoolingResult,
  load,
  type PoolingBenchResult,
  type ServeBenchOptions,
  type ServeBenchResult,
  serveBench,
} from '../../index.ts'
import { servebench } from '../index.ts'

describe('DSL option types', () => {
  test('a misspelt option key is a type error', () => {
    // @ts-expect-error 'laod' is not a serveBench option
    serveBench('x', { laod: load.closed({ concurrency: 1 }) })
    // @ts-expect-error 'numPrompt' is not a datasets.random option
    datasets.random({ numPrompt: 10 })
    // @ts-expect-error 'baseURL' is spelt baseUrl
    endpoint({ baseURL: 'http://127.0.0.1:8000' })
    // @ts-expect-error 'burstyness' is not a load.poisson option
    load.poisson({ rate: 1, burstyness: 2 })
    // @ts-expect-error a wrong backend name
    endpoint({ backend: 'openai-chatt' })
    // @ts-expect-error load.closed needs concurrency
    load.closed({})
    // @ts-expect-error 'timescale' is spelt timeScale
    load.trace({ timescale: 0.5 })
    // @ts-expect-error 'maxFailureRate' is spelt maxFailureRatio
    serveBench('x', { maxFailureRate: 0.1 })
    // @ts-expect-error the reporter's timeline option takes thresholds, not a boolean per band
    servebench({ timeline: { itlThresholdsMs: [25] } })
  })

  test('well-formed options type-check, and assertions receive the result', () => {
    serveBench(
      'ok',
      {
        endpoint: endpoint({ backend: 'openai-chat', model: 'm', headers: { 'x-a': 'b' } }),
        dataset: datasets.random({
          inputLen: 8,
          outputLen: 4,
          numPrompts: 2,
          rangeRatio: { input: 0.1, output: 0 },
        }),
        load: load.poisson({ rate: 5, burstiness: 0.5, maxConcurrency: 2 }),
        goodput: { ttft: 300, tpot: 40 },
        metadata: { team: 'serving' },
      },
      (result) => {
        expectTypeOf(result).toEqualTypeOf<ServeBenchResult>()
      },
    )
    serveBench.each([1, 4])(
      'c=%i',
      (c) => ({ load: load.closed({ concurrency: c }) }),
      (_result, c) => {
        expectTypeOf(c).toEqualTypeOf<number>()
      },
    )
    expectTypeOf(serveBench.skip).parameter(1).toEqualTypeOf<ServeBenchOptions>()
    serveBench('trace replay', {
      dataset: datasets.timedTrace({ path: 'trace.jsonl' }),
      load: load.trace({ timeScale: 0.5, maxConcurrency: 8 }),
      readTimeoutS: 30,
      maxRetries: 2,
      maxFailureRatio: 0.01,
      failOnErrorRatio: 0.1,
    })
    serveBench('narrowing', {}, (result) => {
      if (isPoolingResult(result)) expectTypeOf(result).toEqualTypeOf<PoolingBenchResult>()
      else expectTypeOf(result.ttfts).toEqualTypeOf<number[]>()
    })
    servebench({ timeline: true })
    servebench({ timeline: { itlThresholdsMs: [10, 40] } })
  })

  test('matcher arguments are typed', () => {
    const result = {} as BenchResult
    expect(result).toMeetSLO({ ttft: { p99: 300, 'p99.9': 500 }, tpot: { mean: 40 }, errorRate: 0.01 })
    // @ts-expect-error 'p99x' is not a statistic
    expect(result).toMeetSLO({ ttft: { p99x: 300 } })
    // @ts-expect-error 'tftt' is not a metric
    expect(result).toMeetSLO({ tftt: { p99: 300 } })
    expect(result).toHaveGoodput({ min: 0.95 })
    // @ts-expect-error 'minimum' is not a goodput key
    expect(result).toHaveGoodput({ minimum: 0.95 })
    expect(result).toMatchBaseline({ metrics: ['p99_ttft_ms'], tolerance: 0.1 })
    // @ts-expect-error 'tolerence' is misspelt
    expect(result).toMatchBaseline({ tolerence: 0.1 })
  })
})
