import { serveBench } from 'servebench'
import { bench } from 'vitest'
import { small } from './workload.ts'

bench('a micro-benchmark', () => {
  JSON.stringify({ a: 1 })
})
serveBench('a serving benchmark', small)
