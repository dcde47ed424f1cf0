/**
 * `--client-threads N`: the run's requests sent from N worker threads, each with its own undici
 * pool and stream parser, so the per-chunk work (the client's cost) is spread over cores. The main
 * thread keeps what must be global: the schedule, the FIFO concurrency limit (runner/dispatcher.ts)
 * and the clock. Each output comes back with its times moved onto the main thread's
 * `performance.now()` (the threads' `performance.timeOrigin` offsets), so records merge exactly
 * as if one thread had sent everything.
 */
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { RequestOutput } from '../../config/records.ts'
import { workerExecArgv } from '../../datasets/random/generate-pool.ts'
import { type ClientHealthSummary, DEFAULT_CLIENT_HEALTH_THRESHOLDS } from '../../metrics/client-health.ts'
import type { RetryStats } from '../retry.ts'
import type { ClientThreadData, FromClientThread, PortableRequest, ToClientThread } from './messages.ts'

/** The threads of one run, ready to send. */
export interface ClientThreads {
  readonly count: number
  /**
   * Sends one request on the thread with the fewest in flight. Never rejects: a thread that dies
   * fails its requests with an error text. Times are on the calling thread's clock.
   */
  send(request: PortableRequest, signal: AbortSignal): Promise<RequestOutput>
  /** Starts each thread's self-check monitor (event-loop delay, CPU, GC). */
  startHealth(): void
  /** Each thread's self-check since {@link startHealth}, in thread order. */
  stopHealth(): Promise<ClientHealthSummary[]>
  /** Stops the threads (their sockets close with them). */
  close(): Promise<void>
}

/** Options of {@link startClientThreads}. */
export interface ClientThreadsOptions extends Omit<ClientThreadData, 'connections'> {
  threads: number
  /** The run's concurrency (or its request count when unbounded): split over the threads' pools. */
  connections: number
  /** Retries of the threads' requests are added here. */
  retries: RetryStats
}

/**
 * `--client-threads auto`: one per core the machine lends, minus one kept for the main thread's
 * dispatch and, in suites, the embedded simulator; at least 1.
 */
export function autoClientThreads(cores: number = availableParallelism()): number {
  return Math.max(1, cores - 1)
}

interface Pending {
  resolve(output: RequestOutput): void
  signal: AbortSignal
  onAbort(): void
  startS: number
}

interface ThreadState {
  worker: Worker
  /** Add to a thread time (ms) to get the main thread's time (ms). */
  offsetMs: number
  inFlight: number
  pending: Map<number, Pending>
  health?: (summary: ClientHealthSummary) => void
  dead?: string
}

/** Starts `options.threads` client threads and resolves once each is ready to send. */
export async function startClientThreads(options: ClientThreadsOptions): Promise<ClientThreads> {
  const { threads: count, retries } = options
  const data: ClientThreadData = {
    backend: options.backend,
    connections: Math.max(1, Math.ceil(options.connections / count)),
    insecure: options.insecure,
    httpTransport: options.httpTransport,
    maxRetries: options.maxRetries,
  }
  const states: ThreadState[] = []
  const ready: Array<Promise<void>> = []
  for (let t = 0; t < count; t++) {
    const worker = startClientThread(data)
    const state: ThreadState = { worker, offsetMs: 0, inFlight: 0, pending: new Map() }
    states.push(state)
    ready.push(
      new Promise<void>((resolve, reject) => {
        worker.once('error', reject)
        worker.on('message', (message: FromClientThread) => {
          if (message.kind === 'ready') {
            state.offsetMs = message.timeOriginMs - performance.timeOrigin
            worker.off('error', reject)
            worker.on('error', (error) => fail(state, t, error))
            worker.on('exit', (code) => fail(state, t, new Error(`exited with code ${code}`)))
            resolve()
          } else onMessage(state, message)
        })
      }),
    )
  }
  try {
    await Promise.all(ready)
  } catch (error) {
    await Promise.all(states.map((s) => s.worker.terminate()))
    throw new Error(`--client-threads ${count}: a client thread failed to start: ${String(error)}`, {
      cause: error,
    })
  }

  function onMessage(state: ThreadState, message: FromClientThread): void {
    if (message.kind === 'health') {
      state.health?.(message.summary)
      return
    }
    if (message.kind !== 'done') return
    const pending = state.pending.get(message.id)
    if (!pending) return
    state.pending.delete(message.id)
    state.inFlight--
    pending.signal.removeEventListener('abort', pending.onAbort)
    retries.retries += message.retries.retries
    retries.retriedRequests += message.retries.retriedRequests
    retries.recovered += message.retries.recovered
    const output = message.output
    // The thread's monotonic clock onto ours: only the start is absolute, the rest are spans.
    output.startTimeS += state.offsetMs / 1000
    pending.resolve(output)
  }

  /** A dead thread fails what it held: a failed request is data, never a crash. */
  function fail(state: ThreadState, t: number, error: unknown): void {
    if (state.dead) return
    state.dead = `client thread ${t} stopped: ${error instanceof Error ? error.message : String(error)}`
    for (const pending of state.pending.values()) pending.resolve(failedOutput(pending.startS, state.dead))
    state.pending.clear()
    state.health?.(deadHealth(state.dead))
  }

  let nextId = 0
  let closing = false
  return {
    count,
    send(request, signal) {
      let chosen = states[0]!
      for (const s of states) if (!s.dead && (chosen.dead || s.inFlight < chosen.inFlight)) chosen = s
      const startS = performance.now() / 1000
      if (chosen.dead || closing) return Promise.resolve(failedOutput(startS, chosen.dead ?? 'closed'))
      const id = nextId++
      const state = chosen
      return new Promise<RequestOutput>((resolve) => {
        const onAbort = (): void => post(state, { kind: 'abort', id })
        state.pending.set(id, { resolve, signal, onAbort, startS })
        state.inFlight++
        signal.addEventListener('abort', onAbort, { once: true })
        post(state, { kind: 'send', id, request })
        if (signal.aborted) onAbort()
      })
    },
    startHealth() {
      for (const s of states) if (!s.dead) post(s, { kind: 'health-start' })
    },
    stopHealth() {
      return Promise.all(
        states.map((s) =>
          s.dead
            ? deadHealth(s.dead)
            : new Promise<ClientHealthSummary>((resolve) => {
                s.health = resolve
                post(s, { kind: 'health-stop' })
              }),
        ),
      )
    },
    async close() {
      closing = true
      await Promise.all(states.map((s) => s.worker.terminate()))
    },
  }
}

function post(state: ThreadState, message: ToClientThread): void {
  state.worker.postMessage(message)
}

function failedOutput(startTimeS: number, error: string): RequestOutput {
  return {
    success: false,
    error,
    generatedText: '',
    promptLen: 0,
    outputTokens: null,
    ttftS: 0,
    itlS: [],
    latencyS: 0,
    startTimeS,
  }
}

/** The self-check of a thread that died: saturated, with the reason. */
function deadHealth(reason: string): ClientHealthSummary {
  return {
    saturated: true,
    reasons: [reason],
    durationS: 0,
    eventLoopDelayP50Ms: 0,
    eventLoopDelayP99Ms: 0,
    eventLoopDelayMaxMs: 0,
    dispatchLagP50Ms: 0,
    dispatchLagP99Ms: 0,
    dispatchLagMaxMs: 0,
    cpuShareOfCore: 0,
    cpuCount: availableParallelism(),
    gcCount: 0,
    gcTotalMs: 0,
    gcMaxMs: 0,
    thresholds: { ...DEFAULT_CLIENT_HEALTH_THRESHOLDS },
  }
}

// On Node 20 a worker entry must be JavaScript: from dist/ it is the compiled file; from TypeScript
// sources (Vitest, tsx) a one-line shim registers tsx in the new thread first (as datasets/generate-pool.ts).
function startClientThread(workerData: ClientThreadData): Worker {
  const here = import.meta.url
  const execArgv = workerExecArgv(process.execArgv)
  if (!here.endsWith('.ts')) return new Worker(new URL('./client-thread.js', here), { workerData, execArgv })
  const tsxDir = dirname(createRequire(here).resolve('tsx/package.json'))
  const tsxApi = pathToFileURL(join(tsxDir, 'dist/esm/api/index.mjs')).href
  const entry = new URL('./client-thread.ts', here).href
  const shim = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}) })`
  return new Worker(shim, { eval: true, workerData, execArgv })
}
