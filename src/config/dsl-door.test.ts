import { describe, expect, it } from 'vitest'
import { ConfigError } from '../errors.ts'
import { datasets, endpoint, load } from '../vitest/runtime/builders.ts'
import type { ServeBenchOptions } from './dsl-options.ts'
import { benchConfigFromDsl, configFingerprint } from './from-dsl.ts'
import { didYouMean } from './unknown-keys.ts'

const ctx = { name: 'typo', defaultBaseUrl: 'http://127.0.0.1:9', simulator: true }

function issuesOf(options: unknown): string[] {
  try {
    benchConfigFromDsl(options as ServeBenchOptions, ctx)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return error.issues.map((i) => `${i.path} ${i.message}`)
  }
  return []
}

describe('the DSL door refuses unknown keys, as plain JavaScript would pass them', () => {
  it('names each misspelt key with the closest valid one', () => {
    const issues = issuesOf({
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
    expect(issuesOf({ load: { kind: 'poisson', rate: 2, maxConcurency: 4 } })).toEqual([
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
    const withVerdicts = benchConfigFromDsl({ ...base, verdicts: { budget: 3, policy: 'x' } }, ctx)
    expect(withVerdicts).not.toHaveProperty('verdicts')
    expect(configFingerprint(withVerdicts)).toBe(configFingerprint(plain))
  })

  it('asks for the required field of a load kind and a dataset from a builder', () => {
    expect(issuesOf({ load: { kind: 'poisson' }, dataset: { inputLen: 3 } })).toEqual([
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
