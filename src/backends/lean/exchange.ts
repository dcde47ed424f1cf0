/**
 * One request on the lean transport, from `dispatch()` to its end: the controller undici v2
 * handlers are given (`abort(reason)`, `pause()`, `resume()`), and the one place the handler's
 * callbacks are called, so it hears exactly one of `onResponseEnd` / `onResponseError`.
 */
import type { Dispatcher } from 'undici'
import { errors } from 'undici'
import type { ResponseHeaders } from './response-reader.ts'

/** What holds a request (the queue, then a connection): how to undo it when it is aborted. */
export interface ExchangeHolder {
  /** The request was aborted or failed outside the holder: drop it (and its socket). */
  release(exchange: Exchange): void
  pause(): void
  resume(): void
}

/**
 * A handler that also takes the body as a range of the read buffer: the lean transport calls it
 * instead of `onResponseData`, so no Buffer view is made per read. The range is valid only during
 * the call.
 */
export interface BodyRangeHandler extends Dispatcher.DispatchHandler {
  onResponseBytes(controller: Dispatcher.DispatchController, bytes: Buffer, start: number, end: number): void
}

export class Exchange implements Dispatcher.DispatchController {
  /** The request head, built (and checked) before the request is queued. */
  readonly head: string
  readonly body: string | Uint8Array | null | undefined
  /** undici's `headersTimeout` and `bodyTimeout` of the request; 0 is none. */
  readonly headersTimeoutMs: number
  readonly bodyTimeoutMs: number
  /** Who holds the request now. */
  holder: ExchangeHolder | undefined
  private settled = false
  private abortReason: Error | null = null
  private isPaused = false
  private readonly handler: Dispatcher.DispatchHandler
  /** The handler, when it takes body ranges. */
  private readonly rangeHandler: BodyRangeHandler | undefined

  constructor(head: string, options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
    this.head = head
    this.body = options.body as string | Uint8Array | null | undefined
    this.headersTimeoutMs = options.headersTimeout ?? 0
    this.bodyTimeoutMs = options.bodyTimeout ?? 0
    this.handler = handler
    this.rangeHandler = 'onResponseBytes' in handler ? (handler as BodyRangeHandler) : undefined
  }

  get aborted(): boolean {
    return this.abortReason !== null
  }

  get paused(): boolean {
    return this.isPaused
  }

  get reason(): Error | null {
    return this.abortReason
  }

  /** True once the handler heard its end or its error. */
  get done(): boolean {
    return this.settled
  }

  abort(reason?: Error): void {
    if (this.settled) return
    this.abortReason = reason ?? new errors.RequestAbortedError()
    this.holder?.release(this)
    this.fail(this.abortReason)
  }

  pause(): void {
    this.isPaused = true
    this.holder?.pause()
  }

  resume(): void {
    this.isPaused = false
    this.holder?.resume()
  }

  /** The handler's `onRequestStart`, as undici calls it when a request is created. */
  start(): void {
    this.handler.onRequestStart?.(this, {})
  }

  responseStart(statusCode: number, headers: ResponseHeaders): void {
    if (!this.settled) this.handler.onResponseStart?.(this, statusCode, headers)
  }

  /** `bytes[start, end)` of the body, valid only during the call. */
  responseData(bytes: Buffer, start: number, end: number): void {
    if (this.settled) return
    if (this.rangeHandler !== undefined) this.rangeHandler.onResponseBytes(this, bytes, start, end)
    else this.handler.onResponseData?.(this, bytes.subarray(start, end))
  }

  end(): void {
    if (this.settled) return
    this.settled = true
    this.holder = undefined
    this.handler.onResponseEnd?.(this, {})
  }

  fail(error: Error): void {
    if (this.settled) return
    this.settled = true
    this.holder = undefined
    this.handler.onResponseError?.(this, error)
  }
}
