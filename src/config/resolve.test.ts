import { describe, expect, it, vi } from 'vitest'
import { resolveArgv } from '../../test/config-doors.ts'
import { findFlag } from '../cli/flags.ts'
import { parseArgs } from '../cli/parse-args.ts'
import { resolveServeFlags } from '../options/serve-flags.ts'

describe('resolveServeFlags', () => {
  it('applies the Python defaults', () => {
    const config = resolveArgv([])
    expect(config.endpoint).toMatchObject({
      backend: 'openai',
      baseUrl: 'http://127.0.0.1:8000',
      endpointPath: '/v1/completions',
    })
    expect(config.numPrompts).toBe(1000)
    expect(config.load.requestRate).toBe(Number.POSITIVE_INFINITY)
    expect(config.load.burstiness).toBe(1)
    expect(config.dataset).toMatchObject({ inputLen: 1024, outputLen: 128, prefixLen: 0 })
    expect(config.percentileMetrics).toEqual(['ttft', 'tpot', 'itl'])
    expect(config.metricPercentiles).toEqual([99])
    expect(config.request.requestIdPrefix).toMatch(/^bench-[0-9a-f]{8}-$/)
    expect(config.request.ignoreEos).toBe(true)
  })

  it('forces ignore_eos only for the datasets Python forces it for, unless --ignore-eos is given', () => {
    const sharegpt = ['--dataset-name', 'sharegpt', '--dataset-path', 'x.json']
    expect(resolveArgv(sharegpt).request.ignoreEos).toBe(false)
    expect(resolveArgv([...sharegpt, '--ignore-eos']).request.ignoreEos).toBe(true)
    expect(resolveArgv(['--backend', 'openai-chat']).request.ignoreEos).toBe(true)
  })

  it('maps the chat backend to its endpoint and --base-url over --host/--port', () => {
    const config = resolveArgv([
      '--backend',
      'openai-chat',
      '--base-url',
      'http://localhost:9000/',
      '--port',
      '1',
    ])
    expect(config.endpoint.endpointPath).toBe('/v1/chat/completions')
    expect(config.endpoint.baseUrl).toBe('http://localhost:9000')
  })

  it('takes a base URL that ends in /v1 as OpenAI clients do, and says so', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(resolveArgv(['--base-url', 'http://u:secret@gpu:8000/v1/']).endpoint.baseUrl).toBe(
      'http://u:secret@gpu:8000',
    )
    expect(warn.mock.calls).toEqual([
      [
        'servebench: --base-url ends in /v1, which servebench adds itself (/v1/completions, /v1/models): sending to http://u:***@gpu:8000',
      ],
    ])
    // An endpoint outside /v1 keeps the base URL whole: a server mounted under /v1 is meant.
    const infinity = resolveArgv(['--backend', 'infinity-embeddings', '--base-url', 'http://gpu:7997/v1'])
    expect(infinity.endpoint.baseUrl).toBe('http://gpu:7997/v1')
    expect(warn).toHaveBeenCalledTimes(1)
  })

  it('refuses --http-transport lean with a proxy in the environment, naming the flag', () => {
    expect(() => resolveArgv(['--http-transport', 'lean'], { https_proxy: 'http://proxy:3128' })).toThrow(
      "--http-transport is 'lean', which cannot send through a proxy, and HTTP_PROXY or HTTPS_PROXY is set; use 'auto' or",
    )
    expect(
      resolveArgv(['--http-transport', 'auto'], { HTTP_PROXY: 'http://proxy:3128' }).endpoint.httpTransport,
    ).toBe('auto')
    expect(resolveArgv(['--http-transport', 'lean']).endpoint.httpTransport).toBe('lean')
  })

  it('reads the API key from OPENAI_API_KEY and headers as KEY=VALUE', () => {
    const config = resolveArgv(['--header', 'X-A = 1', 'x-b=c=d'], { OPENAI_API_KEY: 'sk-test' })
    expect(config.endpoint.apiKey).toBe('sk-test')
    expect(config.endpoint.headers).toEqual({ 'X-A': '1', 'x-b': 'c=d' })
  })

  it('merges sampling flags, extra body, goodput, percentiles and metadata', () => {
    const config = resolveArgv([
      '--temperature',
      '0',
      '--top-k',
      '5',
      '--extra-body',
      '{"top_k": 7}',
      '--goodput',
      'ttft:300',
      'tpot:40',
      '--percentile-metrics',
      'ttft,e2el',
      '--metric-percentiles',
      '50,99.9',
      '--metadata',
      'gpu = H100',
      'run=1',
    ])
    expect(config.request.sampling).toEqual({ temperature: 0, top_k: 5 })
    expect(config.request.extraBody).toEqual({ top_k: 7 })
    expect(config.goodput).toEqual({ ttft: 300, tpot: 40 })
    expect(config.percentileMetrics).toEqual(['ttft', 'e2el'])
    expect(config.metricPercentiles).toEqual([50, 99.9])
    expect(config.metadata).toEqual([
      ['gpu', 'H100'],
      ['run', '1'],
    ])
  })

  it('accepts inf rates and a ramp-up with the rate left at inf', () => {
    const config = resolveArgv([
      '--ramp-up-strategy',
      'linear',
      '--ramp-up-start-rps',
      '1',
      '--ramp-up-end-rps',
      '10',
      '--burstiness',
      'inf',
    ])
    expect(config.load.rampUp).toEqual({ strategy: 'linear', startRps: 1, endRps: 10 })
    expect(config.load.burstiness).toBe(Number.POSITIVE_INFINITY)
  })

  it('reports every bad value with its flag and what is valid', () => {
    expect(() =>
      resolveArgv([
        '--num-prompts',
        '0',
        '--request-rate',
        '-1',
        '--burstiness',
        '0',
        '--backend',
        'tgi',
        '--goodput',
        'ttfb:1',
        '--metric-percentiles',
        '101',
        '--extra-body',
        '[1]',
        '--max-concurrency',
        'x',
      ]),
    ).toThrowErrorMatchingInlineSnapshot(`
      [ConfigError: Invalid configuration (8 issues):
        - --backend must be one of vllm, openai, openai-chat, openai-responses, openai-audio, openai-embeddings, openai-embeddings-chat, openai-embeddings-clip, openai-embeddings-vlm2vec, infinity-embeddings, infinity-embeddings-clip, vllm-pooling, vllm-rerank (got "tgi")
        - --num-prompts must be at least 1 (got 0)
        - --request-rate must be > 0 or inf (got "-1")
        - --burstiness must be > 0 (1 is Poisson, inf is a constant rate) (got "0")
        - --max-concurrency must be an integer (got "x")
        - --extra-body must be a JSON object such as '{"temperature": 0}' (got [1])
        - --metric-percentiles must be comma-separated numbers in [0, 100] (got "101")
        - --goodput has unknown key "ttfb"; valid: ttft, tpot, e2el]
    `)
  })

  it('rejects a ramp-up without its rates, a zero start rate, and a finite --request-rate', () => {
    expect(() => resolveArgv(['--ramp-up-strategy', 'exponential'])).toThrow(
      '--ramp-up-strategy needs both --ramp-up-start-rps and --ramp-up-end-rps',
    )
    expect(() =>
      resolveArgv([
        '--ramp-up-strategy',
        'linear',
        '--ramp-up-start-rps',
        '0',
        '--ramp-up-end-rps',
        '5',
        '--request-rate',
        '3',
      ]),
    ).toThrowErrorMatchingInlineSnapshot(`
      [ConfigError: Invalid configuration (2 issues):
        - --request-rate must be left at inf with --ramp-up-strategy (the ramp sets the rate)
        - --ramp-up-start-rps must be > 0 (got 0)]
    `)
  })

  it('rejects flags servebench does not implement yet, naming them', () => {
    const planned = (name: string) => (name === '--random-input-len' ? 'planned' : findFlag(name)?.status)
    expect(() => resolveServeFlags(parseArgs(['--random-input-len', '1']), {}, planned)).toThrow(
      '--random-input-len is not supported by servebench yet; see docs/cli-flags.md for what is',
    )
  })

  it('rejects --dataset-path with the random dataset and a bad range ratio', () => {
    expect(() => resolveArgv(['--dataset-path', 'x.json'])).toThrow(
      '--dataset-path cannot be used with --dataset-name random',
    )
    expect(() => resolveArgv(['--random-range-ratio', 'abc'])).toThrow(
      '--random-range-ratio must be a number or a JSON object {"input": a, "output": b} (got "abc")',
    )
  })
})
