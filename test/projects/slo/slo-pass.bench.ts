import { serveBench } from 'servebench'
import { describe, expect } from 'vitest'
import { tiny } from './workload.ts'

describe('chat', () => {
  // 24 requests cannot bound p90 from above (that takes 35): the run is extended by one round.
  serveBench('holds its SLO', tiny, (result) => {
    expect(result).toMeetSLO({ ttft: { p90: 2000, mean: 1000 }, e2el: { p50: 5000 }, errorRate: 0 })
    expect(result).toHaveGoodput({ min: 0.8 })
  })
})
