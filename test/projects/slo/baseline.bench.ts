import { serveBench } from 'servebench'
import { expect } from 'vitest'
import { tiny } from './workload.ts'

serveBench('decode speed', tiny, (result) => {
  expect(result).toMatchBaseline({ metrics: ['mean_tpot_ms', 'mean_e2el_ms'], tolerance: 0.15 })
})
