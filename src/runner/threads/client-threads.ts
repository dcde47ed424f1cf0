/**
 * `--client-threads N`: worker threads that each own a share of the timed run, as `--segment`
 * processes do: each gets its slice of the seeded schedule and its slots of `--max-concurrency`
 * once, sends and times them with its own connection pools and stream parser, and posts its
 * records back in batches. The main thread starts them together, stops them and merges
 * (thread-run.ts). Times come back moved onto the main thread's `performance.now()` (the threads'
 * `performance.timeOrigin` offsets), so records merge exactly as if one thread had sent everything.
 */
import { Worker } from 'node:worker_threads'
import type { RequestOutput } from '../../config/records.ts'
import { workerExecArgv } from '../../datasets/random/generate-pool.ts'
import { onRunTimeLine } from '../../report/result/merge-shares.ts'
import { tsWorkerShim } from '../../tsx-location.ts'
import type { RetryStats } from '../retry.ts'
import type {
  ClientThreadData,
  FromClientThread,
  PortableRequest,
  ThreadRecord,
  ThreadShare,
  ToClientThread,
} from './messages.ts'

/** How one thread's share ended: its `finished` message with the times moved onto the main thread's clock, or its death. */
export type ThreadEnd =
  | Extract<FromClientThread, { kind: 'finished' }>
  | { kind: 'died'; reason: string; atS: number }

/** A timed run dealt to the threads, from arming to the last thread's end. */
export interface ThreadRun {
  /** Resolves once every thread holds its share and waits for `go`. */
  armed: Promise<void>
  /** Starts every thread at `startAtMs` (`performance.timeOrigin + performance.now()`, ms). */
  go(startAtMs: number): void
  stop(): void
  force(): void
  /** Each thread's end, in thread order. */
  ended: Promise<ThreadEnd[]>
}

/** The threads of one run, ready to send. */
export interface ClientThreads {
  readonly count: number
  /**
   * Sends one request on the thread with the fewest in flight (the warm-ups). Never rejects: a
   * thread that dies fails its requests with an error text. Times are on the calling thread's clock.
   */
  send(request: PortableRequest, signal: AbortSignal): Promise<RequestOutput>
  /**
   * Deals `shares[t]` to thread t (fewer shares than threads leave the rest idle). `onRecords`
   * gets each batch, moved onto this thread's clock, with the thread's requests in flight.
   */
  run(
    shares: readonly ThreadShare[],
    onRecords: (thread: number, records: ThreadRecord[], inFlight: number) => void,
  ): ThreadRun
  /** Stops the threads (their sockets close with them). */
  close(): Promise<void>
}

/** Options of {@link startClientThreads}. */
export interface ClientThreadsOptions extends Omit<ClientThreadData, 'connections'> {
  threads: number
  /** The run's concurrency (or its request count when unbounded): split over the threads' pools. */
  connections: number
  /** Retries of the one-off sends are added here. */
  retries: RetryStats
}

interface Pending {
  resolve(output: RequestOutput): void
  signal: AbortSignal
  onAbort(): void
  startS: number
}

/** What the main thread routes a thread's run messages to while a run is dealt. */
interface RunListener {
  armed(): void
  records(records: ThreadRecord[], inFlight: number): void
  ended(end: ThreadEnd): void
}

interface ThreadState {
  worker: Worker
  /** Add to a thread time (ms) to get the main thread's time (ms). */
  offsetMs: number
  inFlight: number
  pending: Map<number, Pending>
  run?: RunListener
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
    const shiftS = state.offsetMs / 1000
    switch (message.kind) {
      case 'armed':
        state.run?.armed()
        return
      case 'records':
        state.run?.records(
          message.records.map((r) => onRunTimeLine(r, shiftS)),
          message.inFlight,
        )
        return
      case 'finished': {
        const { kind: _, startS, endS, ...rest } = message
        state.run?.ended({ kind: 'finished', startS: startS + shiftS, endS: endS + shiftS, ...rest })
        return
      }
      case 'done': {
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
        output.startTimeS += shiftS
        pending.resolve(output)
        return
      }
    }
  }

  /** A dead thread fails what it held: a failed request is data, never a crash. */
  function fail(state: ThreadState, t: number, error: unknown): void {
    if (state.dead) return
    state.dead = `client thread ${t} stopped: ${error instanceof Error ? error.message : String(error)}`
    const atS = performance.now() / 1000
    for (const pending of state.pending.values()) pending.resolve(failedOutput(pending.startS, state.dead))
    state.pending.clear()
    // A thread that dies before it armed counts as armed, so the others are not held.
    state.run?.armed()
    state.run?.ended({ kind: 'died', reason: state.dead, atS })
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
    run(shares, onRecords) {
      const used = states.slice(0, shares.length)
      const armed: Array<Promise<void>> = []
      const ended: Array<Promise<ThreadEnd>> = []
      used.forEach((state, t) => {
        let onArmed!: () => void
        let onEnded!: (end: ThreadEnd) => void
        armed.push(new Promise<void>((resolve) => (onArmed = resolve)))
        ended.push(new Promise<ThreadEnd>((resolve) => (onEnded = resolve)))
        state.run = {
          armed: onArmed,
          records: (records, inFlight) => onRecords(t, records, inFlight),
          ended: (end) => {
            state.run = undefined
            onEnded(end)
          },
        }
        if (!state.dead) post(state, { kind: 'run', share: shares[t]! })
        else {
          state.run.armed()
          state.run.ended({ kind: 'died', reason: state.dead, atS: performance.now() / 1000 })
        }
      })
      const each = (message: ToClientThread): void => {
        for (const state of used) if (!state.dead) post(state, message)
      }
      return {
        armed: Promise.all(armed).then(() => {}),
        go: (startAtMs) => each({ kind: 'go', startAtMs }),
        stop: () => each({ kind: 'stop' }),
        force: () => each({ kind: 'force' }),
        ended: Promise.all(ended),
      }
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

/** The output of a request a dead or closed thread could not send. */
export function failedOutput(startTimeS: number, error: string): RequestOutput {
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

// On Node 20 a worker entry must be JavaScript: from dist/ it is the compiled file; from TypeScript
// sources (Vitest, tsx) a one-line shim registers tsx in the new thread first (as datasets/generate-pool.ts).
function startClientThread(workerData: ClientThreadData): Worker {
  const here = import.meta.url
  const execArgv = workerExecArgv(process.execArgv)
  if (!here.endsWith('.ts')) return new Worker(new URL('./client-thread.js', here), { workerData, execArgv })
  const shim = tsWorkerShim(new URL('./client-thread.ts', here).href, here)
  return new Worker(shim, { eval: true, workerData, execArgv })
}
