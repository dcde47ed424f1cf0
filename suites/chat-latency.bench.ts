import { datasets, endpoint, load, serveBench } from 'servebench'
import { describe, expect } from 'vitest'

const chat = endpoint({ backend: 'openai-chat' })

describe('chat latency', () => {
  serveBench(
    'short chat at 20 req/s',
    {
      endpoint: chat,
      // A p99 bound can pass only once its confidence interval has an upper end: 368 requests at
      // 95% (docs/statistics.md). 400 decide it in one round.
      dataset: datasets.random({ inputLen: 256, outputLen: 32, numPrompts: 400 }),
      load: load.poisson({ rate: 20, burstiness: 1, maxConcurrency: 16 }),
      goodput: { ttft: 300, tpot: 50 },
      percentiles: [50, 90, 99],
    },
    (result) => {
      expect(result).toMeetSLO({ ttft: { p99: 300 }, tpot: { mean: 50 }, errorRate: 0 })
      expect(result).toHaveGoodput({ min: 0.95 })
    },
  )
})
