import { serveBench } from 'servebench'
import { describe, expect } from 'vitest'
import { tiny } from './workload.ts'

describe('chat', () => {
  serveBench('holds its SLO', tiny, (result) => {
    expect(result).toMeetSLO({ ttft: { p99: 2000, mean: 1000 }, e2el: { p50: 5000 }, errorRate: 0 })
    expect(result).toHaveGoodput({ min: 0.9 })
  })
})
