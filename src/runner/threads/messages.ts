/**
 * The messages between the main thread and the client threads of `--client-threads` (plain data,
 * structured-cloned). The main thread keeps the schedule and the concurrency limit; a client
 * thread only sends requests and reads their streams.
 */
import type { BackendRequest } from '../../backends/types.ts'
import type { BackendName, HttpTransport } from '../../config/bench-config.ts'
import type { RequestOutput } from '../../config/records.ts'
import type { ClientHealthSummary } from '../../metrics/client-health.ts'
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

/** Main thread → client thread. */
export type ToClientThread =
  | { kind: 'send'; id: number; request: PortableRequest }
  | { kind: 'abort'; id: number }
  | { kind: 'health-start' }
  | { kind: 'health-stop' }

/** Client thread → main thread. Times in `output` are on the thread's own monotonic clock. */
export type FromClientThread =
  | {
      kind: 'ready'
      /** `performance.timeOrigin` of the thread: its clock is the main thread's plus the difference. */
      timeOriginMs: number
    }
  | { kind: 'done'; id: number; output: RequestOutput; retries: RetryStats }
  | { kind: 'health'; summary: ClientHealthSummary }
