import { describe, expect, it } from 'vitest'
import { issuesOf } from '../../test/config-doors.ts'
import { datasets, endpoint } from '../vitest/runtime/builders.ts'
import { benchConfigFromDsl } from './from-dsl.ts'

const sim = { name: 'rerank', defaultBaseUrl: 'http://127.0.0.1:4321', simulator: true }

describe('DSL: other backends and datasets.randomRerank()', () => {
  it('reaches a pooling backend through endpoint({ backend }), with E2EL statistics by default', () => {
    const c = benchConfigFromDsl({ endpoint: endpoint({ backend: 'openai-embeddings' }) }, sim)
    expect(c.endpoint.endpointPath).toBe('/v1/embeddings')
    expect(c.percentileMetrics).toEqual(['e2el'])
  })

  it('maps datasets.randomRerank() to the random-rerank dataset', () => {
    const c = benchConfigFromDsl(
      {
        endpoint: endpoint({ backend: 'vllm-rerank' }),
        dataset: datasets.randomRerank({ inputLen: 256, batchSize: 8, numPrompts: 64 }),
      },
      sim,
    )
    expect(c.endpoint.endpointPath).toBe('/v1/rerank')
    expect(c.numPrompts).toBe(64)
    expect(c.dataset).toEqual({
      kind: 'random-rerank',
      inputLen: 256,
      rangeRatio: { input: 0, output: 0 },
      batchSize: 8,
      noReranker: false,
    })
  })

  it('reports a generation backend and a bad batch with paths from the benchmark', () => {
    expect(
      issuesOf(() =>
        benchConfigFromDsl({ dataset: datasets.randomRerank({ noReranker: true, batchSize: 1 }) }, sim),
      ),
    ).toEqual([
      "serveBench('rerank').dataset random-rerank needs a pooling backend that takes a list of inputs (vllm-rerank, openai-embeddings, vllm-pooling); got endpoint({ backend: 'openai' })",
      "serveBench('rerank').dataset.batchSize must be at least 2 with dataset.noReranker: the query takes one input of each request (got 1)",
    ])
  })
})
