import { datasets, endpoint, load, serveBench } from 'servebench'
import { describe, expect } from 'vitest'

describe('closed-loop sweep', () => {
  serveBench.each([1, 4, 16])(
    'concurrency %i',
    (concurrency) => ({
      endpoint: endpoint({ backend: 'openai-chat' }),
      dataset: datasets.random({ inputLen: 128, outputLen: 32, numPrompts: Math.max(8, 4 * concurrency) }),
      load: load.closed({ concurrency }),
      ignoreEos: true,
    }),
    (result, concurrency) => {
      // A median is decided from a few requests; a p99 would need 368 per point.
      expect(result).toMeetSLO({ failed: 0, e2el: { median: 3000 } })
      expect(result.max_concurrent_requests).toBeLessThanOrEqual(concurrency)
    },
  )
})
