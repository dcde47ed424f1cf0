import { setTimeout as sleep } from 'node:timers/promises'
import type { RequestOutput } from '../config/records.ts'
import { withFields } from '../with-fields.ts'
import { settleWithDrain } from './signals.ts'

/** One scheduled request: when it arrives (seconds after the run start) and how to send it. */
export interface DispatchItem<T> {
  offsetS: number
  payload: T
}

export interface DispatchOptions {
  maxConcurrency?: number
  /** Stops new sends; requests already in flight get `drainMs` to finish, then their signal aborts. */
  signal?: AbortSignal
  drainMs?: number
  /** A second interrupt: abort the requests in flight without waiting out `drainMs`. */
  forceSignal?: AbortSignal
  /**
   * After each request: how many are done, and the one that just ended (its output and its
   * complete record) with the number still in flight.
   */
  onRequestEnd?(done: number, ended: { output: RequestOutput; record: Dispatched; inFlight: number }): void
  /**
   * The run's start, `performance.now() / 1000` of this thread: several client threads given one
   * start share one time line of intended send times. Defaults to now.
   */
  startS?: number
  /**
   * Every request is due at once (`--request-rate inf` without ramp-up or trace): the first wave
   * (up to `maxConcurrency` requests) is released as one burst, timed on its own, and
   * {@link onFirstWave} is called after it. @default false
   */
  closedLoop?: boolean
  /** Closed loops: called once the first wave has been released, before the rest is judged. */
  onFirstWave?(): void
}

/** A sent request's output plus when it arrived and when it actually started, monotonic seconds. */
export interface Dispatched extends RequestOutput {
  index: number
  /** When the schedule said to send it: the run start plus its offset, monotonic seconds. */
  intendedTimeS: number
  arrivalTimeS: number
  queueTimeS: number
}

export interface DispatchOutcome {
  /** In dispatch order; requests never sent (interrupted) are absent. */
  results: Dispatched[]
  /**
   * For each result, ms: when it was started minus when it was due, the client self-check's
   * dispatch lag. Due is its schedule time when a slot was free, else when the request before it
   * in that slot ended. NaN for a closed loop's first wave, which {@link firstWave} times instead.
   */
  latenessMs: number[]
  /** Closed loops: the first wave's size and how long releasing it took, ms. */
  firstWave?: { requests: number; releaseMs: number }
  /** `performance.now()/1000` just before the first arrival wait: Python's benchmark_start_time. */
  startS: number
  /** After the last request finished. */
  endS: number
  interrupted: boolean
}

export const DEFAULT_DRAIN_MS = 5_000

/**
 * Start each request at its offset, gated by a FIFO concurrency limit. Arrival is stamped when the
 * schedule releases a request; start is stamped by the backend after it acquires a slot, so the
 * client queue time (`start - arrival`) is recorded apart from the service time.
 * Python: benchmark (vllm/benchmarks/serve.py) with its semaphore; Rust: benchmark.rs.
 */
export async function dispatch<T>(
  items: ReadonlyArray<DispatchItem<T>>,
  send: (payload: T, signal: AbortSignal) => Promise<RequestOutput>,
  options: DispatchOptions = {},
): Promise<DispatchOutcome> {
  const limit = options.maxConcurrency ?? Number.POSITIVE_INFINITY
  // Nothing would ever start; the flag's own check says so first.
  if (!(limit >= 1)) throw new RangeError(`maxConcurrency must be at least 1 (got ${limit})`)
  // One controller per request in flight, not one shared signal: an EventTarget adds and removes a
  // listener in time linear in its listeners, which at 500 streams cost ~50 µs per request.
  const inFlight = new Set<AbortController>()
  let abortedInFlight = false
  const results: Array<Dispatched | undefined> = new Array(items.length)
  // Released requests waiting for a slot, in release order, as plain numbers (12 bytes each): at
  // --request-rate inf every request is released at once, and a closure and a promise per waiting
  // request held about 1.1 KB each (112 MB for 100,000).
  const waiting = new Int32Array(items.length)
  let waitingHead = 0
  let waitingTail = 0
  const arrivalTimesS = new Float64Array(items.length)
  // When each request was due and when it started, for its lateness (see DispatchOutcome).
  const dueTimesS = new Float64Array(items.length)
  const startedTimesS = new Float64Array(items.length)
  const firstWave = options.closedLoop ? Math.min(limit, items.length) : 0
  let firstWaveReleaseMs: number | undefined
  let running = 0
  let releasing = true
  let done = 0
  const interrupted = (): boolean => options.signal?.aborted === true
  let settle!: () => void
  let fail!: (error: unknown) => void
  const finished = new Promise<void>((resolve, reject) => {
    settle = resolve
    fail = reject
  })
  const startS = options.startS ?? performance.now() / 1000

  // Resolves to when the request's slot freed, for the request that takes it next.
  const sendOne = async (i: number): Promise<number> => {
    const controller = new AbortController()
    if (abortedInFlight) controller.abort(new Error('interrupted'))
    inFlight.add(controller)
    let output: RequestOutput
    try {
      output = await send(items[i]!.payload, controller.signal)
    } finally {
      inFlight.delete(controller)
    }
    // The slot freed when the response ended (its last chunk, on the client's clock); a failure
    // frees it when it settles here.
    const endS = output.startTimeS + output.latencyS
    const freedAtS = output.success && output.latencyS > 0 && endS > 0 ? endS : performance.now() / 1000
    const arrivalTimeS = arrivalTimesS[i]!
    const record = withFields(output, {
      index: i,
      intendedTimeS: startS + items[i]!.offsetS,
      arrivalTimeS,
      queueTimeS: Math.max(0, output.startTimeS - arrivalTimeS),
    })
    results[i] = record
    options.onRequestEnd?.(++done, { output, record, inFlight: inFlight.size })
    return freedAtS
  }
  const start = (i: number, dueS: number): void => {
    running++
    dueTimesS[i] = dueS
    startedTimesS[i] = performance.now() / 1000
    sendOne(i).then(slotFreed, (error: unknown) => {
      fail(error)
      slotFreed(performance.now() / 1000)
    })
  }
  // The next waiting request takes the slot; once stopped, the waiting ones are never sent.
  const slotFreed = (freedAtS: number): void => {
    running--
    if (interrupted()) waitingHead = waitingTail
    while (running < limit && waitingHead < waitingTail) {
      const next = waiting[waitingHead++]!
      start(next, Math.max(freedAtS, arrivalTimesS[next]!))
    }
    if (!releasing && running === 0 && waitingHead === waitingTail) settle()
  }

  for (let i = 0; i < items.length && !interrupted(); i++) {
    const waitMs = (startS + items[i]!.offsetS) * 1000 - performance.now()
    if (waitMs > 1) await sleepUnlessAborted(waitMs, options.signal)
    if (interrupted()) break
    // Later than intended when the event loop was busy: the client self-check's dispatch lag.
    arrivalTimesS[i] = performance.now() / 1000
    if (running < limit) start(i, startS + items[i]!.offsetS)
    else waiting[waitingTail++] = i
    if (i === firstWave - 1) {
      firstWaveReleaseMs = (performance.now() / 1000 - startS) * 1000
      options.onFirstWave?.()
    }
  }
  releasing = false
  if (interrupted()) waitingHead = waitingTail
  if (running === 0) settle()

  await settleWithDrain(finished, {
    signal: options.signal,
    forceSignal: options.forceSignal,
    drainMs: options.drainMs ?? DEFAULT_DRAIN_MS,
    abortInFlight: () => {
      abortedInFlight = true
      for (const controller of inFlight) controller.abort(new Error('interrupted'))
    },
  })
  const sent = results.filter((r): r is Dispatched => r !== undefined)
  return {
    results: sent,
    latenessMs: sent.map((r) =>
      r.index < firstWave ? Number.NaN : (startedTimesS[r.index]! - dueTimesS[r.index]!) * 1000,
    ),
    ...(firstWaveReleaseMs !== undefined
      ? { firstWave: { requests: firstWave, releaseMs: firstWaveReleaseMs } }
      : {}),
    startS,
    endS: performance.now() / 1000,
    interrupted: interrupted(),
  }
}

// Node fires a longer timer after 1 ms with a warning: a trace timestamp of 1e300 s must wait, not fire.
const MAX_TIMER_MS = 2 ** 31 - 1

async function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    for (let left = ms; left > 0 && !signal?.aborted; left -= MAX_TIMER_MS) {
      await sleep(Math.min(left, MAX_TIMER_MS), undefined, signal ? { signal } : undefined)
    }
  } catch {
    // Aborted: the caller checks the signal.
  }
}
