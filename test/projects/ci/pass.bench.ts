import { serveBench } from 'servebench'
import { expect } from 'vitest'
import { small } from './workload.ts'

serveBench('holds its SLO', small, (result) => {
  expect(result).toMeetSLO({ ttft: { mean: 60_000 }, errorRate: 0 })
})
