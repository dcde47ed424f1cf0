import { serveBench } from 'servebench'
import { describe, expect } from 'vitest'
import { tiny } from './workload.ts'

describe('chat', () => {
  // The simulator's first token takes 20 ms: a 1 ms bound cannot hold.
  serveBench('misses its SLO', tiny, (result) => {
    expect(result).toMeetSLO({ ttft: { p99: 1 }, errorRate: 0 })
  })
})
