import { serveBench } from 'servebench'
import { expect } from 'vitest'
import { small } from './workload.ts'

serveBench('misses its SLO', small, (result) => {
  expect(result).toMeetSLO({ ttft: { p99: 1 }, errorRate: 0 })
})
