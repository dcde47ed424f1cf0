import { describe, expect, it } from 'vitest'
import { argvIssues, resolveArgv } from '../../test/config-doors.ts'

describe('backend flags', () => {
  it.each([
    ['openai-responses', '/v1/responses'],
    ['openai-audio', '/v1/audio/transcriptions'],
    ['openai-embeddings', '/v1/embeddings'],
    ['openai-embeddings-chat', '/v1/embeddings'],
    ['openai-embeddings-clip', '/v1/embeddings'],
    ['openai-embeddings-vlm2vec', '/v1/embeddings'],
    ['infinity-embeddings', '/embeddings'],
    ['infinity-embeddings-clip', '/embeddings'],
    ['vllm-pooling', '/pooling'],
    ['vllm-rerank', '/v1/rerank'],
  ])('%s defaults to %s', (backend, path) => {
    expect(resolveArgv(['--backend', backend]).endpoint.endpointPath).toBe(path)
  })

  it('pooling backends report E2EL by default and do not force ignore_eos', () => {
    const config = resolveArgv(['--backend', 'openai-embeddings'])
    expect(config.percentileMetrics).toEqual(['e2el'])
    expect(config.request.ignoreEos).toBe(false)
  })

  it('--random-batch-size batches inputs on a pooling backend', () => {
    expect(resolveArgv(['--backend', 'vllm-pooling', '--random-batch-size', '4']).dataset).toMatchObject({
      kind: 'random',
      batchSize: 4,
    })
  })

  it('refuses --random-batch-size on a generation backend', () => {
    expect(argvIssues(['--random-batch-size', '4'])).toEqual([
      '--random-batch-size must be 1 with a generation backend (got 4); batches need openai-embeddings, openai-embeddings-chat, openai-embeddings-clip, openai-embeddings-vlm2vec, infinity-embeddings, infinity-embeddings-clip, vllm-pooling, vllm-rerank',
    ])
  })

  it('refuses --random-batch-size on openai-embeddings-chat', () => {
    expect(argvIssues(['--backend', 'openai-embeddings-chat', '--random-batch-size', '2'])).toEqual([
      '--random-batch-size must be 1 with --backend openai-embeddings-chat (got 2): it sends one message per request',
    ])
  })

  it('refuses --min-p with openai-responses, naming the flag', () => {
    expect(argvIssues(['--backend', 'openai-responses', '--min-p', '0.1'])).toEqual([
      '--min-p is not supported by --backend openai-responses (the Responses API has no min_p); remove it, or send it with --extra-body if your server accepts it',
    ])
  })

  it('drops sampling flags on a pooling backend, as Python does', () => {
    expect(argvIssues(['--backend', 'vllm-rerank', '--temperature', '0'])).toEqual([])
    expect(
      resolveArgv(['--backend', 'vllm-rerank', '--temperature', '0', '--top-k', '5']).request.sampling,
    ).toEqual({})
  })

  it('refuses sampling flags with openai-audio, as Python does, naming each flag', () => {
    expect(argvIssues(['--backend', 'openai-audio', '--temperature', '0', '--top-p', '0.9'])).toEqual([
      '--temperature is a sampling parameter; Python sends sampling parameters only with the openai-compatible backends (vllm, openai, openai-chat), not --backend openai-audio; send it with --extra-body if your server accepts it',
      '--top-p is a sampling parameter; Python sends sampling parameters only with the openai-compatible backends (vllm, openai, openai-chat), not --backend openai-audio; send it with --extra-body if your server accepts it',
    ])
  })

  it('forces ignore_eos on random only for vllm, openai and openai-chat', () => {
    for (const backend of ['vllm', 'openai', 'openai-chat']) {
      expect(resolveArgv(['--backend', backend]).request.ignoreEos).toBe(true)
    }
    expect(resolveArgv(['--backend', 'openai-responses']).request.ignoreEos).toBe(false)
    expect(resolveArgv(['--backend', 'openai-responses', '--ignore-eos']).request.ignoreEos).toBe(true)
    expect(resolveArgv(['--backend', 'openai-embeddings']).request.ignoreEos).toBe(false)
  })

  it('refuses --prompt-token-ids on a text-only backend', () => {
    expect(argvIssues(['--backend', 'openai-responses', '--prompt-token-ids'])).toEqual([
      '--prompt-token-ids needs a backend that sends token ids (vllm, openai, openai-embeddings, vllm-pooling); openai-responses sends text',
    ])
  })
})

describe('--dataset-name random-rerank', () => {
  it('reads its length, batch and --no-reranker', () => {
    const config = resolveArgv([
      '--backend',
      'vllm-rerank',
      '--dataset-name',
      'random-rerank',
      '--random-input-len',
      '256',
      '--random-batch-size',
      '8',
      '--no-reranker',
    ])
    expect(config.dataset).toEqual({
      kind: 'random-rerank',
      inputLen: 256,
      rangeRatio: { input: 0, output: 0 },
      batchSize: 8,
      noReranker: true,
    })
  })

  it('needs a pooling backend that takes a list of inputs', () => {
    expect(argvIssues(['--dataset-name', 'random-rerank'])).toEqual([
      '--dataset-name random-rerank needs a pooling backend that takes a list of inputs (vllm-rerank, openai-embeddings, vllm-pooling); got --backend openai',
    ])
  })
})
