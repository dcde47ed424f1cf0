import { describe, expect, it } from 'vitest'
import { ConfigError } from '../errors.ts'
import { benchConfigFromDsl, configFingerprint } from './from-dsl.ts'

const sim = { name: 'chat > short', defaultBaseUrl: 'http://127.0.0.1:4321', simulator: true }

describe('benchConfigFromDsl', () => {
  it('targets the simulator with its tiktoken encoding by default', () => {
    const c = benchConfigFromDsl({}, sim)
    expect(c.endpoint).toMatchObject({
      backend: 'openai',
      baseUrl: 'http://127.0.0.1:4321',
      endpointPath: '/v1/completions',
    })
    expect(c.tokenizer.id).toBe('cl100k_base')
    expect(c.label).toBe('chat > short')
    expect(c.load).toEqual({ requestRate: Number.POSITIVE_INFINITY, burstiness: 1 })
  })

  it('names endpoint.httpTransport when lean meets a proxy in the environment', () => {
    expect(() =>
      benchConfigFromDsl(
        { endpoint: { kind: 'endpoint', httpTransport: 'lean' } },
        { ...sim, env: { HTTPS_PROXY: 'http://proxy:3128' } },
      ),
    ).toThrow(
      /serveBench\('chat > short'\)\.endpoint\.httpTransport is 'lean', which cannot send through a proxy/,
    )
  })

  it('maps endpoint, dataset and each load kind', () => {
    const c = benchConfigFromDsl(
      {
        endpoint: {
          kind: 'endpoint',
          backend: 'openai-chat',
          baseUrl: 'http://h:1/',
          model: 'm',
          tokenizer: 't',
        },
        dataset: { kind: 'random', inputLen: 32, outputLen: 8, numPrompts: 12, rangeRatio: 0.5 },
        load: { kind: 'poisson', rate: 5, maxConcurrency: 2 },
        goodput: { ttft: 100 },
        metadata: { team: 'a' },
      },
      sim,
    )
    expect(c.endpoint).toMatchObject({
      baseUrl: 'http://h:1',
      endpointPath: '/v1/chat/completions',
      model: 'm',
    })
    expect(c.tokenizer.id).toBe('t')
    expect(c.numPrompts).toBe(12)
    expect(c.dataset).toMatchObject({ inputLen: 32, outputLen: 8, rangeRatio: { input: 0.5, output: 0.5 } })
    expect(c.load).toEqual({ requestRate: 5, burstiness: 1, maxConcurrency: 2 })
    expect(c.goodput).toEqual({ ttft: 100 })
    expect(c.metadata).toEqual([['team', 'a']])
    expect(benchConfigFromDsl({ load: { kind: 'constant', rate: 3 } }, sim).load.burstiness).toBe(
      Number.POSITIVE_INFINITY,
    )
    expect(benchConfigFromDsl({ load: { kind: 'closed', concurrency: 4 } }, sim).load).toEqual({
      requestRate: Number.POSITIVE_INFINITY,
      burstiness: 1,
      maxConcurrency: 4,
    })
    expect(benchConfigFromDsl({ load: { kind: 'rampUp', startRps: 1, endRps: 9 } }, sim).load.rampUp).toEqual(
      {
        strategy: 'linear',
        startRps: 1,
        endRps: 9,
      },
    )
  })

  it('reports every bad field at once, with paths from the benchmark name', () => {
    let error: unknown
    try {
      benchConfigFromDsl(
        { load: { kind: 'poisson', rate: -1, burstiness: 0 }, dataset: { kind: 'random', numPrompts: 0 } },
        sim,
      )
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).message).toMatchInlineSnapshot(`
      "Invalid configuration (3 issues):
        - serveBench('chat > short').dataset.numPrompts must be at least 1 (got 0)
        - serveBench('chat > short').load.rate must be > 0 or inf (got "-1")
        - serveBench('chat > short').load.burstiness must be > 0 (1 is Poisson, inf is a constant rate) (got "0")"
    `)
  })

  it('asks for a base URL when there is neither plugin nor option', () => {
    expect(() => benchConfigFromDsl({}, { name: 'x' })).toThrow(
      "serveBench('x').endpoint.baseUrl is not set; set it, set SERVEBENCH_BASE_URL, or add the servebench() plugin to run the simulator",
    )
  })
})

describe('configFingerprint', () => {
  it('ignores the port and request ids but not the workload', () => {
    const a = benchConfigFromDsl({ dataset: { kind: 'random', numPrompts: 5 } }, sim)
    const b = benchConfigFromDsl(
      { dataset: { kind: 'random', numPrompts: 5 } },
      { ...sim, defaultBaseUrl: 'http://127.0.0.1:9' },
    )
    const c = benchConfigFromDsl({ dataset: { kind: 'random', numPrompts: 6 } }, sim)
    expect(configFingerprint(a)).toBe(configFingerprint(b))
    expect(configFingerprint(a)).not.toBe(configFingerprint(c))
    expect(configFingerprint(a)).toMatch(/^[0-9a-f]{16}$/)
  })
})
