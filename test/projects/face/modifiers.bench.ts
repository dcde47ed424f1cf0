import { serveBench } from 'servebench'
import { small } from './workload.ts'

serveBench.todo('written later')
serveBench.skip('skipped outright', small)
serveBench.skipIf(true)('skipped by skipIf', small)
serveBench.skipIf(false)('run by skipIf', small)
serveBench.runIf(false)('skipped by runIf', small)
serveBench.runIf(true)('run by runIf', small)
