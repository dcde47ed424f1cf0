import { datasets, endpoint, load, serveBench } from 'servebench'
import { expect } from 'vitest'

// Judged once, on all the segments together: a share alone has fewer than 24 requests.
serveBench(
  'judged on the merged segments',
  {
    endpoint: endpoint({ backend: 'openai-chat', model: 'servebench/sim-model' }),
    dataset: datasets.random({ inputLen: 32, outputLen: 16, numPrompts: 24 }),
    load: load.poisson({ rate: 100, maxConcurrency: 4 }),
    ignoreEos: true,
  },
  (result) => {
    expect(result.completed).toBe(24)
    expect(result).toMeetSLO({ ttft: { p99: 5000 }, errorRate: 0 })
  },
)
