/**
 * The dispatcher's own cost at `--request-rate inf`: every request is released at once and waits
 * for a `--max-concurrency` slot. Measured in a child process (`--expose-gc`, the built dist/) with
 * a send that answers on the next turn of the event loop, so only the queue and its bookkeeping
 * are counted: the heap the waiting requests hold, and the CPU per request.
 */
import { spawnSync } from 'node:child_process'

const DIST = new URL('../dist/', import.meta.url)

export interface DispatchQueueFigures {
  requests: number
  maxConcurrency: number
  /** Heap held once every request is released, over the heap before, per request (after a full GC). */
  queuedHeapBytesPerRequest: number
  cpuUsPerRequest: number
}

function childScript(requests: number, maxConcurrency: number): string {
  return `
const { setImmediate: tick } = await import('node:timers/promises')
const { dispatch } = await import(${JSON.stringify(new URL('runner/dispatcher.js', DIST).href)})
const items = Array.from({ length: ${requests} }, (_, i) => ({ offsetS: 0, payload: i }))
const output = { success: true, error: '', generatedText: '', promptLen: 1, outputTokens: 1,
  ttftS: 0, itlS: [], latencyS: 0, startTimeS: 0 }
gc()
const before = process.memoryUsage().heapUsed
let queued = 0
let calls = 0
const cpu = process.cpuUsage()
await dispatch(items, async () => {
  // The first send runs while the release loop is still going; one turn later every request waits.
  if (++calls === 1) {
    await tick()
    gc()
    queued = process.memoryUsage().heapUsed - before
  }
  await tick()
  return { ...output }
}, { maxConcurrency: ${maxConcurrency} })
const used = process.cpuUsage(cpu)
console.log(JSON.stringify({ queued, cpuUs: used.user + used.system }))
`
}

export function measureDispatchQueue(requests = 100_000, maxConcurrency = 100): DispatchQueueFigures {
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', '--input-type=module', '-e', childScript(requests, maxConcurrency)],
    { encoding: 'utf8' },
  )
  if (child.status !== 0) throw new Error(`dispatch-queue child failed: ${child.stderr}`)
  const { queued, cpuUs } = JSON.parse(child.stdout.trim()) as { queued: number; cpuUs: number }
  return {
    requests,
    maxConcurrency,
    queuedHeapBytesPerRequest: queued / requests,
    cpuUsPerRequest: cpuUs / requests,
  }
}

export function printDispatchQueue(): void {
  const r = measureDispatchQueue()
  console.log(
    `dispatch queue: ${r.requests} requests released at once behind --max-concurrency ${r.maxConcurrency}: ` +
      `${r.queuedHeapBytesPerRequest.toFixed(0)} B of heap per waiting request, ${r.cpuUsPerRequest.toFixed(1)} µs CPU per request`,
  )
  console.log(JSON.stringify({ perf: 'dispatch-queue', ...r }))
}
