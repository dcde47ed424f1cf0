import { serveBench } from 'servebench'
import { expect } from 'vitest'
import { tiny } from './workload.ts'

serveBench('impossible SLO in a test file', tiny, (result) => {
  expect(result).toMeetSLO({ e2el: { mean: 2 } })
})
