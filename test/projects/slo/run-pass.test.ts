import { serveBench } from 'servebench'
import { expect } from 'vitest'
import { tiny } from './workload.ts'

// A mean bound is decided by the 24 requests of one round (a p99 bound would take 368).
serveBench('SLO in a test file', tiny, (result) => {
  expect(result).toMeetSLO({ ttft: { mean: 2000 }, failed: 0 })
})
