import { serveBench } from 'servebench'
import { small } from './workload.ts'

serveBench.only('the only one', small)
serveBench('left out by only', small)
