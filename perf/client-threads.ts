/**
 * Does spreading the client over worker threads cut its timing error? The same streamed requests
 * as client-floor.ts (plain undici dispatch(), every chunk stamped on arrival, its `data:` events
 * counted, nothing else parsed), sent from 1 or more worker threads that split the concurrency,
 * against the simulator in its own process, with the error measured against the simulator's send
 * stamps as client-overhead.ts does. Run: `npx tsx perf/client-threads.ts 500 5000 1 2` (concurrency,
 * requests, then the thread counts to try; `WARM=1` first sends one unrecorded request per connection).
 */
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { request } from 'undici'
import { percentile } from '../src/metrics/percentile.ts'
import { startSimProcess } from './client-overhead.ts'

const WORKER = `
const { workerData, parentPort } = require('node:worker_threads')
const { Agent } = require(workerData.undici)
const { url, concurrency, requests, prefix, warm } = workerData
const agent = new Agent({ connections: concurrency, headersTimeout: 0, bodyTimeout: 0 })
const origin = new URL(url).origin
const stamps = {}
const DATA = Buffer.from('data:')
function send(i, warmup) {
  const id = (warmup ? 'warm-' : '') + prefix + i
  const mine = warmup ? [] : (stamps[id] = [])
  const body = JSON.stringify({
    prompt: Array.from({ length: 32 }, (_, j) => 1000 + ((i * 32 + j) % 50000)),
    max_tokens: 64, ignore_eos: true, stream: true, stream_options: { include_usage: true },
  })
  return new Promise((resolve, reject) => {
    agent.dispatch({ origin, path: '/v1/completions', method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': id }, body }, {
      onRequestStart() {}, onResponseStart() {},
      onResponseData(_c, chunk) {
        const at = performance.timeOrigin + performance.now()
        for (let p = chunk.indexOf(DATA); p !== -1; p = chunk.indexOf(DATA, p + 5)) mine.push(at)
      },
      onResponseEnd() { resolve() },
      onResponseError(_c, e) { reject(e) },
    })
  })
}
// With warm: one request per connection first, unrecorded, so the measured run starts with the
// pool connected and the code compiled. Then 'ready', and the run starts on 'go', so the parent's
// clocks start once every thread has started (and warmed).
const warmup = warm ? Promise.all(Array.from({ length: concurrency }, (_, i) => send(i, true))) : Promise.resolve()
let next = 0
const loop = async () => { while (next < requests) await send(next++, false) }
warmup
  .then(() => new Promise((go) => { parentPort.once('message', go); parentPort.postMessage('ready') }))
  .then(() => Promise.all(Array.from({ length: concurrency }, loop)))
  .then(() => parentPort.postMessage(stamps))
`

interface SimTiming {
  requestId: string
  eventSentAtMs: number[]
}

async function measure(
  url: string,
  concurrency: number,
  requests: number,
  threads: number,
  warm: boolean,
): Promise<void> {
  await request(`${url}/servebench/timings`, { method: 'DELETE' }).then((r) => r.body.dump())
  const undici = import.meta.resolve('undici').replace('file://', '')
  const workers: Worker[] = []
  const ready: Array<Promise<void>> = []
  const results = Promise.all(
    Array.from({ length: threads }, (_, t) => {
      const worker = new Worker(WORKER, {
        eval: true,
        workerData: {
          undici,
          url,
          concurrency: Math.round(concurrency / threads),
          requests: Math.round(requests / threads),
          prefix: `t${t}-`,
          warm,
        },
      })
      workers.push(worker)
      let started: () => void = () => {}
      ready.push(new Promise((resolve) => (started = resolve)))
      return new Promise<Record<string, number[]>>((resolve, reject) => {
        worker.on('message', (message: 'ready' | Record<string, number[]>) => {
          if (message === 'ready') return started()
          resolve(message)
          void worker.terminate()
        })
        worker.once('error', reject)
      })
    }),
  )
  // The clocks start once every thread has loaded undici (and sent its warm-up requests), as
  // client-overhead.ts starts them at the main run: neither start-up nor warm-up is in the figures.
  await Promise.race([Promise.all(ready), results])
  const cpuStart = process.cpuUsage()
  const wallStart = performance.now()
  for (const worker of workers) worker.postMessage('go')
  const stamps = Object.assign({}, ...(await results)) as Record<string, number[]>
  const cpu = process.cpuUsage(cpuStart)
  const wallMs = performance.now() - wallStart
  const sent = Math.round(requests / threads) * threads
  const sim = (await (await request(`${url}/servebench/timings`)).body.json()) as SimTiming[]
  const ttft: number[] = []
  const itl: number[] = []
  for (const { requestId, eventSentAtMs: simSent } of sim) {
    const got = stamps[requestId]
    if (!got || got.length < simSent.length) continue
    ttft.push(Math.abs(got[0]! - simSent[0]!))
    for (let i = 1; i < simSent.length; i++)
      itl.push(Math.abs(got[i]! - got[i - 1]! - (simSent[i]! - simSent[i - 1]!)))
  }
  const fmt = (xs: number[]) =>
    `median ${percentile(xs, 50).toFixed(2)} p99 ${percentile(xs, 99).toFixed(2)} ms`
  console.log(
    `c=${concurrency} threads ${threads}${warm ? ' warm' : ''}: ${((cpu.user + cpu.system) / 1000 / sent).toFixed(3)} ms CPU/request (process, after start-up${warm ? ' and warm-up' : ''}), ` +
      `${(sent / (wallMs / 1000)).toFixed(0)} req/s, TTFT error ${fmt(ttft)}, ITL error ${fmt(itl)} (${ttft.length} requests)`,
  )
}

/** Prints one line per thread count, each a run against one simulator (TTFT 50 ms, ITL 20 ms). */
export async function measureClientThreads(
  concurrency: number,
  requests: number,
  threadCounts: number[],
  options: { warm?: boolean } = {},
): Promise<void> {
  const sim = await startSimProcess(['--ttft-ms', '50', '--itl-ms', '20', '--record-timings'])
  try {
    for (const threads of threadCounts)
      await measure(sim.url, concurrency, requests, threads, options.warm === true)
  } finally {
    await sim.stop()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [concurrency = 500, requests = 5000, ...threadCounts] = process.argv.slice(2).map(Number)
  await measureClientThreads(concurrency, requests, threadCounts.length > 0 ? threadCounts : [1, 2], {
    warm: process.env.WARM === '1',
  })
}
