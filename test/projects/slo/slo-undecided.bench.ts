import { serveBench } from 'servebench'
import { describe, expect } from 'vitest'
import { tiny } from './workload.ts'

// 24 requests cannot bound p99 from above (that takes 368), and no round may be added.
describe('chat', () => {
  serveBench('undecided, point policy', { ...tiny, verdicts: { budget: false } }, (result) => {
    expect(result).toMeetSLO({ ttft: { p99: 2000 } })
  })
  serveBench(
    'undecided, fail policy',
    { ...tiny, verdicts: { budget: false, inconclusive: 'fail' } },
    (result) => {
      expect(result).toMeetSLO({ ttft: { p99: 2000 } })
    },
  )
})
