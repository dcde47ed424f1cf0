/**
 * One client-overhead measurement as one line, for interleaved A/B runs of two working trees:
 * `TAG=a npx tsx perf/client-once.ts 500 5000` (concurrency, requests; FLOOR=1 adds the floors).
 * Alternate the variants under the same load, three runs or more each: the machine is shared.
 */
import { measureClientOverhead } from './client-overhead.ts'

const concurrency = Number(process.argv[2] ?? 500)
const requests = Number(process.argv[3] ?? 5_000)
const r = await measureClientOverhead(concurrency, requests, {
  floor: process.env.FLOOR === '1',
  warmups: Number(process.env.WARMUPS ?? 0),
})
const floors = r.floor
  .map((f) => ` floor-${f.kind} ${f.cpuMsPerRequest.toFixed(3)} (user ${f.userCpuMsPerRequest.toFixed(3)})`)
  .join('')
console.log(
  `${process.env.TAG ?? ''} c=${concurrency} cpu ${r.cpuMsPerRequest.toFixed(3)} user ${r.userCpuMsPerRequest.toFixed(3)} main ${r.mainThreadCpuMsPerRequest?.toFixed(3)}` +
    ` ttft med ${r.ttftErrorMs.median.toFixed(2)} p99 ${r.ttftErrorMs.p99.toFixed(2)}` +
    ` itl med ${r.itlErrorMs.median.toFixed(3)} p99 ${r.itlErrorMs.p99.toFixed(2)}` +
    ` loop p99 ${r.eventLoopDelayMs.p99.toFixed(1)} gc ${r.gc.totalMs.toFixed(0)}ms` +
    `${floors} load ${r.loadAverage1m.toFixed(2)}`,
)
