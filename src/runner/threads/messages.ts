/**
 * The messages between the main thread and the client threads of `--client-threads` (plain data,
 * structured-cloned). A timed run crosses once each way per thread and per batch: the main thread
 * deals each thread its share of the schedule (`run`), starts them together (`go`) and stops them
 * (`stop`, `force`); each thread sends and times its share on its own and posts its records back
 * in batches (`records`), then its end (`finished`). `send` is for one-off requests (warm-ups).
 */
import type { BackendRequest } from '../../backends/types.ts'
import type { BackendName, HttpTransport } from '../../config/bench-config.ts'
import type { RequestOutput } from '../../config/records.ts'
import type { DispatchTiming, LoopSamples } from '../../metrics/client-health.ts'
import type { Dispatched, DispatchItem } from '../dispatcher.ts'
import type { RetryStats } from '../retry.ts'

/** A request as it crosses threads: no signal and no callbacks (the thread adds its own). */
export type PortableRequest = Omit<BackendRequest, 'signal' | 'onEarlyFailure'>

/** What a client thread gets at start-up. */
export interface ClientThreadData {
  backend: BackendName
  /** Sockets of this thread's own pool. */
  connections: number
  insecure: boolean
  httpTransport: HttpTransport | undefined
  maxRetries: number
}

/**
 * One request of a thread's share: when it is due, what it sends, and its index in the process's
 * share of the schedule (the whole schedule without `--segment`).
 */
export type ShareItem = DispatchItem<{ request: PortableRequest; index: number }>

/** A thread's part of the timed run, dealt once before it starts. */
export interface ThreadShare {
  items: ShareItem[]
  /** This thread's slots of `--max-concurrency`; absent when unbounded. */
  maxConcurrency?: number
  /** Run the self-check monitor on this thread (not with `--client-check off`). */
  clientCheck: boolean
  /** Every request is due at once: the first wave is released as one burst and judged apart. */
  closedLoop: boolean
  /** Drain time of a stopped run, ms. */
  drainMs: number
}

/** Main thread → client thread. */
export type ToClientThread =
  | { kind: 'send'; id: number; request: PortableRequest }
  | { kind: 'abort'; id: number }
  | { kind: 'run'; share: ThreadShare }
  | {
      kind: 'go'
      /** The shared start, `performance.timeOrigin + performance.now()` (ms) of any thread. */
      startAtMs: number
    }
  | { kind: 'stop' }
  | { kind: 'force' }

/** A measured request as a thread posts it: `index` is its {@link ShareItem.index}; times on the thread's clock. */
export type ThreadRecord = Dispatched

/** Client thread → main thread. Times are on the thread's own monotonic clock. */
export type FromClientThread =
  | {
      kind: 'ready'
      /** `performance.timeOrigin` of the thread: its clock is the main thread's plus the difference. */
      timeOriginMs: number
    }
  | { kind: 'done'; id: number; output: RequestOutput; retries: RetryStats }
  | { kind: 'armed' }
  | {
      kind: 'records'
      records: ThreadRecord[]
      /** The thread's requests in flight when the batch left. */
      inFlight: number
    }
  | {
      kind: 'finished'
      startS: number
      endS: number
      interrupted: boolean
      retries: RetryStats
      /** The thread's self-check figures over its share; absent without a self-check. */
      health?: ThreadHealth
    }

/** What a client thread measured of itself: its loop, and how late its dispatcher sent. */
export interface ThreadHealth {
  samples: LoopSamples
  /** Lateness of each request after the first wave, ms (DispatchOutcome.latenessMs). */
  latenessMs: number[]
  firstWave?: DispatchTiming['firstWave']
}
