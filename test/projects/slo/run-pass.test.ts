import { serveBench } from 'servebench'
import { expect } from 'vitest'
import { tiny } from './workload.ts'

serveBench('SLO in a test file', tiny, (result) => {
  expect(result).toMeetSLO({ ttft: { p99: 2000 }, failed: 0 })
})
