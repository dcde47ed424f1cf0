/**
 * One servebench round of `npm run perf -- python`, in a fresh process (perf/python-peer.ts starts
 * it): `tsx perf/python-peer-servebench.ts <simulator URL> <concurrency> <requests>`. Prints the
 * round's figures as one JSON line, last.
 */
import { measureServebench } from './python-peer.ts'

const [simUrl, concurrency, requests] = process.argv.slice(2)
if (simUrl === undefined || concurrency === undefined || requests === undefined) {
  throw new Error('usage: python-peer-servebench.ts <simulator URL> <concurrency> <requests>')
}
const figures = await measureServebench(simUrl, Number(concurrency), Number(requests))
console.log(JSON.stringify(figures))
