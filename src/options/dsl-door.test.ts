import { describe, expect, it } from 'vitest'
import { issuesOf } from '../../test/config-doors.ts'
import type { ServeBenchOptions } from '../config/dsl-options.ts'
import { didYouMean } from '../config/unknown-keys.ts'
import { datasets, endpoint, load } from '../vitest/runtime/builders.ts'
import { benchConfigFromDsl, configFingerprint } from './from-dsl.ts'

const ctx = { name: 'typo', defaultBaseUrl: 'http://127.0.0.1:9', simulator: true }
const dslIssues = (options: unknown): string[] =>
  issuesOf(() => benchConfigFromDsl(options as ServeBenchOptions, ctx))

describe('the DSL door refuses unknown keys, as plain JavaScript would pass them', () => {
  it('names each misspelt key with the closest valid one', () => {
    const issues = dslIssues({
      laod: load.closed({ concurrency: 2 }),
      endpoint: { kind: 'endpoint', modle: 'm' },
      dataset: { kind: 'random', inputLength: 8 },
    })
    expect(issues).toHaveLength(3)
    expect(issues[0]).toMatch(
      /^serveBench\('typo'\)\.laod is not an option of serveBench options; did you mean 'load'\? \(valid: goodput, .*load/,
    )
    expect(issues[1]).toMatch(
      /^serveBench\('typo'\)\.endpoint\.modle is not an option of endpoint\(\); did you mean 'model'\?/,
    )
    expect(issues[2]).toMatch(
      /^serveBench\('typo'\)\.dataset\.inputLength is not an option of datasets\.random\(\); did you mean 'inputLen'\?/,
    )
    expect(dslIssues({ load: { kind: 'poisson', rate: 2, maxConcurency: 4 } })).toEqual([
      expect.stringMatching(
        /^serveBench\('typo'\)\.load\.maxConcurency is not an option of load\.poisson\(\); did you mean 'maxConcurrency'\?/,
      ),
    ])
  })

  it('gives no guess for a key that resembles nothing', () => {
    expect(didYouMean('zzzzzzzz', ['load', 'dataset'])).toBeUndefined()
    expect(didYouMean('maxConcurency', ['maxConcurrency', 'rate'])).toBe('maxConcurrency')
  })

  it('accepts verdicts and keeps them out of the configuration and its fingerprint', () => {
    const base: ServeBenchOptions = { dataset: datasets.random({ numPrompts: 3 }) }
    const plain = benchConfigFromDsl(base, ctx)
    const withVerdicts = benchConfigFromDsl(
      { ...base, verdicts: { budget: { rounds: 3 }, inconclusive: 'warn' } },
      ctx,
    )
    expect(withVerdicts).not.toHaveProperty('verdicts')
    expect(configFingerprint(withVerdicts)).toBe(configFingerprint(plain))
  })

  it('asks for the required field of a load kind and a dataset from a builder', () => {
    expect(dslIssues({ load: { kind: 'poisson' }, dataset: { inputLen: 3 } })).toEqual([
      "serveBench('typo').dataset must come from datasets.<name>(), e.g. datasets.random()",
      "serveBench('typo').load.rate is required by load.poisson()",
    ])
  })

  it('maps every field to the flag the CLI reads: endpoint, sampling, the random dataset, each load', () => {
    const c = benchConfigFromDsl(
      {
        endpoint: endpoint({ backend: 'openai-chat', headers: { 'X-Team': 'abcd' }, apiKey: 'sk-1' }),
        dataset: datasets.random({ rangeRatio: { input: 0.1, output: 0.2 }, prefixLen: 4 }),
        load: load.rampUp({ strategy: 'exponential', startRps: 1, endRps: 4, maxConcurrency: 3 }),
        sampling: { temperature: 0.5, top_k: 5 },
        ignoreEos: false,
        percentiles: [50, 99.9],
      },
      ctx,
    )
    expect(c.endpoint).toMatchObject({ headers: { 'X-Team': 'abcd' }, apiKey: 'sk-1' })
    expect(c.dataset).toMatchObject({ rangeRatio: { input: 0.1, output: 0.2 }, prefixLen: 4 })
    expect(c.load).toEqual({
      requestRate: Number.POSITIVE_INFINITY,
      burstiness: 1,
      maxConcurrency: 3,
      rampUp: { strategy: 'exponential', startRps: 1, endRps: 4 },
    })
    expect(c.request).toMatchObject({ sampling: { temperature: 0.5, top_k: 5 }, ignoreEos: false })
    expect(c.metricPercentiles).toEqual([50, 99.9])
    expect(c.label).toBe('typo')
  })
})

describe('suite defaults', () => {
  it('resolves a relative dataset path from the root, and an hf id only when it is a local folder', () => {
    const root = '/work/suites'
    const custom = benchConfigFromDsl(
      { dataset: datasets.custom({ path: 'data/p.jsonl' }) },
      { ...ctx, root },
    )
    expect(custom.dataset).toMatchObject({ path: '/work/suites/data/p.jsonl' })
    const absolute = benchConfigFromDsl(
      { dataset: datasets.custom({ path: '/abs/p.jsonl' }) },
      { ...ctx, root },
    )
    expect(absolute.dataset).toMatchObject({ path: '/abs/p.jsonl' })
    const hub = benchConfigFromDsl({ dataset: datasets.hf({ path: 'openai/gsm8k' }) }, { ...ctx, root })
    expect(hub.dataset).toMatchObject({ path: 'openai/gsm8k' })
    const local = benchConfigFromDsl(
      { dataset: datasets.hf({ path: 'src' }) },
      { ...ctx, root: process.cwd() },
    )
    expect(local.dataset).toMatchObject({ path: `${process.cwd()}/src` })
  })

  it("starts from the plugin's endpoint fields, which the suite's own override", () => {
    const endpointDefaults = { backend: 'openai-chat' as const, model: 'plugin', tokenizer: 'o200k_base' }
    const plain = benchConfigFromDsl({}, { ...ctx, endpointDefaults })
    expect(plain.endpoint).toMatchObject({ backend: 'openai-chat', model: 'plugin' })
    expect(plain.tokenizer.id).toBe('o200k_base')
    const own = benchConfigFromDsl({ endpoint: endpoint({ model: 'mine' }) }, { ...ctx, endpointDefaults })
    expect(own.endpoint).toMatchObject({ backend: 'openai-chat', model: 'mine' })
  })

  it('runs {} as a workload of seconds, and datasets.random() with Python defaults', () => {
    expect(benchConfigFromDsl({}, ctx)).toMatchObject({
      numPrompts: 50,
      dataset: { inputLen: 256, outputLen: 64 },
    })
    expect(benchConfigFromDsl({ dataset: datasets.random() }, ctx)).toMatchObject({
      numPrompts: 1000,
      dataset: { inputLen: 1024, outputLen: 128 },
    })
  })
})

describe('errors after collection speak DSL', () => {
  it('rewords the flags a dataset or model error names', async () => {
    const { resolveDsl } = await import('./from-dsl.ts')
    const { reword } = resolveDsl({ dataset: datasets.custom({ path: 'p.jsonl' }) }, ctx)
    expect(reword('custom: --dataset-path /x/p.jsonl does not exist')).toBe(
      'custom: dataset.path /x/p.jsonl does not exist',
    )
    expect(reword('Is the server running? Pass --model to skip this lookup.')).toBe(
      'Is the server running? Pass endpoint.model to skip this lookup.',
    )
  })
})
