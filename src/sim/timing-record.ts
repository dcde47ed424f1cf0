import { performance } from 'node:perf_hooks'

/** When the simulator read one request and wrote each of its events (epoch milliseconds, sub-ms). */
export interface SimRequestTimings {
  /** The `x-request-id` header, or `sim-<n>` when the request had none. */
  requestId: string
  /** Route path, e.g. `/v1/completions`. */
  path: string
  /** When the request body had been fully read. */
  receivedAtMs: number
  /**
   * When each choice-bearing event was handed to the socket (stamped just before `res.write`,
   * so a client's arrival stamp can never precede it). Chat streams include the role chunk;
   * the usage chunk and `[DONE]` are not included. A non-streamed response has one entry: its body.
   */
  eventSentAtMs: number[]
}

/** Wall-clock epoch milliseconds with performance.now() resolution. */
export function epochNowMs(): number {
  return performance.timeOrigin + performance.now()
}

/** Keeps one {@link SimRequestTimings} per request, in arrival order. */
export class TimingRecorder {
  private records: SimRequestTimings[] = []

  start(requestId: string, path: string, receivedAtMs: number): SimRequestTimings {
    const record: SimRequestTimings = { requestId, path, receivedAtMs, eventSentAtMs: [] }
    this.records.push(record)
    return record
  }

  /** A copy, so callers cannot change what later requests append to. */
  list(): SimRequestTimings[] {
    return this.records.map((r) => ({ ...r, eventSentAtMs: [...r.eventSentAtMs] }))
  }

  clear(): void {
    this.records = []
  }
}
