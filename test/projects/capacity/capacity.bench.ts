import { datasets, endpoint, serveBench } from 'servebench'
import { expect } from 'vitest'

serveBench.capacity(
  'decode capacity',
  {
    endpoint: endpoint({ backend: 'openai', model: 'servebench/sim-model' }),
    dataset: datasets.random({ inputLen: 16, outputLen: 8 }),
    ignoreEos: true,
    slo: { tpot: { mean: 40 } },
    search: { maxLoad: 200, probeRequests: 80, precision: 0.1, budgetRequests: 1600 },
  },
  (cap) => {
    // Soft: a failed toSustain still lets toMatchBaseline judge the same answer.
    expect.soft(cap).toSustain({ requestRate: 24 })
    expect(cap).toMatchBaseline({ tolerance: 0.2 })
  },
)
