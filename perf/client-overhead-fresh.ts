/**
 * One client-overhead measurement in a fresh process, for `npm run perf -- client` (run.ts starts
 * it): `tsx perf/client-overhead-fresh.ts <concurrency> <requests> '<options as JSON>'`. Prints the
 * figures as one JSON line, last.
 */
import { measureClientOverhead } from './client-overhead.ts'

const [concurrency, requests, options] = process.argv.slice(2)
if (concurrency === undefined || requests === undefined) {
  throw new Error("usage: client-overhead-fresh.ts <concurrency> <requests> ['<options as JSON>']")
}
const figures = await measureClientOverhead(
  Number(concurrency),
  Number(requests),
  JSON.parse(options ?? '{}'),
)
console.log(JSON.stringify(figures))
