import { serveBench } from 'servebench'
import { expect } from 'vitest'
import { tiny } from './workload.ts'

// A small extension budget: on a busy machine an unchanged rerun stays undecided and would
// otherwise grow to the default 2,000 requests (about a minute) before it says so.
serveBench('decode speed', { ...tiny, verdicts: { budget: { requests: 240 } } }, (result) => {
  expect(result).toMatchBaseline({ metrics: ['mean_tpot_ms', 'mean_e2el_ms'], tolerance: 0.15 })
})
