import type { Dispatcher } from 'undici'
import type { RequestOutput } from '../config/records.ts'
import type { BodyRangeHandler } from './lean/exchange.ts'
import {
  BODY_HEAD_BYTES,
  type BodyHead,
  describeBodyHead,
  describeFailure,
  ERROR_BODY_MAX_BYTES,
  headerText,
  httpErrorText,
  isNotAStream,
  isTimeout,
} from './request-errors.ts'
import { vllmResponseHeaders } from './server-details.ts'
import { FAILED_OUTPUT_KEPT_CHARS, StreamLimitError } from './stream-limits.ts'
import { type Abort, NO_VALID_CHUNK_ERROR } from './stream-request.ts'
import type { StreamHandler } from './timed-stream.ts'
import type { BackendRequest } from './types.ts'

/**
 * The undici handler of one streamed request: body chunks go straight from the HTTP parser to
 * the stream handler, with no Readable in between (no buffering, no event emitter, no promise per
 * chunk), so each chunk is stamped in the same tick the socket delivered it. Settles the output
 * as `request()` + a `data` listener did: a failure before the headers is `Request failed`, a
 * non-2xx status reads the start of its body for the error text, a break mid-body is `Stream error`.
 */
export class StreamDispatch implements BodyRangeHandler {
  private controller: Dispatcher.DispatchController | undefined
  private stream: StreamHandler | undefined
  /** A non-2xx answer: its status, `Retry-After` and the start of its body. */
  private status:
    | { code: number; retryAfter: unknown; contentType: string | undefined; chunks: Buffer[]; bytes: number }
    | undefined
  private settled = false
  /** A 2xx answer: its content type and encoding, and the first bytes of its body. */
  private answer: BodyHead | undefined
  private readonly removeAbortListener: (() => void) | undefined
  private readonly req: BackendRequest
  private readonly output: RequestOutput
  private readonly abort: Abort | undefined
  private readonly createHandler: (output: RequestOutput) => StreamHandler
  private resolve: ((output: RequestOutput) => void) | undefined
  /** The output, once the request succeeded or failed; never rejects. */
  readonly done: Promise<RequestOutput>

  constructor(
    req: BackendRequest,
    output: RequestOutput,
    abort: Abort | undefined,
    createHandler: (output: RequestOutput) => StreamHandler,
  ) {
    this.req = req
    this.output = output
    this.abort = abort
    this.createHandler = createHandler
    this.done = new Promise((resolve) => {
      this.resolve = resolve
    })
    const signal = abort?.signal
    if (signal !== undefined && !signal.aborted) {
      const onAbort = (): void => this.controller?.abort(signal.reason)
      signal.addEventListener('abort', onAbort, { once: true })
      this.removeAbortListener = () => signal.removeEventListener('abort', onAbort)
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    const signal = this.abort?.signal
    if (signal?.aborted) controller.abort(signal.reason)
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return // 1xx: the real answer follows.
    this.abort?.headersArrived()
    if (statusCode > 299) {
      this.status = {
        code: statusCode,
        retryAfter: headers['retry-after'],
        contentType: headerText(headers['content-type']),
        chunks: [],
        bytes: 0,
      }
    } else {
      this.answer = {
        status: statusCode,
        contentType: headerText(headers['content-type']),
        contentEncoding: headerText(headers['content-encoding']),
        head: [],
        headBytes: 0,
        totalBytes: 0,
      }
      const metadata = vllmResponseHeaders(headers)
      if (metadata !== undefined) this.output.responseMetadata = metadata
      this.stream = this.createHandler(this.output)
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.onResponseBytes(controller, chunk, 0, chunk.length)
  }

  /** `bytes[start, end)` of the body: the lean transport's call, which makes no view per read. */
  onResponseBytes(
    controller: Dispatcher.DispatchController,
    bytes: Buffer,
    start: number,
    end: number,
  ): void {
    if (this.stream !== undefined) {
      if (this.settled) return
      const answer = this.answer!
      answer.totalBytes += end - start
      if (answer.headBytes < BODY_HEAD_BYTES) {
        const stop = Math.min(end, start + BODY_HEAD_BYTES - answer.headBytes)
        // A copy: the lean transport reads every socket into one reused buffer.
        answer.head.push(Buffer.from(bytes.subarray(start, stop)))
        answer.headBytes += stop - start
      }
      try {
        this.stream.chunk(bytes, start, end)
      } catch (error) {
        if (!(error instanceof StreamLimitError)) throw error
        // Over a limit: the request fails with the limit named, and the rest is not read.
        this.output.success = false
        this.output.error = error.message
        this.settle()
        controller.abort(error)
      }
      return
    }
    const status = this.status
    if (status === undefined || this.settled) return
    // A copy, as above.
    status.chunks.push(Buffer.from(bytes.subarray(start, end)))
    status.bytes += end - start
    if (status.bytes >= ERROR_BODY_MAX_BYTES) {
      // Enough for the error text: settle now and drop the rest of the body with the connection.
      this.settleStatus()
      controller.abort(new Error('error body read'))
    }
  }

  onResponseEnd(): void {
    if (this.status !== undefined) this.settleStatus()
    else this.settleBody(undefined)
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.status !== undefined) {
      // The status line is the error; a broken error body adds nothing.
      this.settleStatus()
    } else if (this.stream !== undefined) {
      this.settleBody(error)
    } else if (!this.settled) {
      const { output, req, abort } = this
      output.error = `Request failed: ${describeFailure(error, req, abort?.reason)}`
      req.onEarlyFailure?.({ kind: 'connect', timedOut: abort?.reason() !== undefined || isTimeout(error) })
      this.settle()
    }
  }

  private settleStatus(): void {
    if (this.settled) return
    const { code, retryAfter, contentType, chunks } = this.status!
    this.output.error = httpErrorText(code, Buffer.concat(chunks).toString('utf8'), contentType)
    this.req.onEarlyFailure?.({
      kind: 'status',
      status: code,
      ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
    })
    this.settle()
  }

  private settleBody(error: Error | undefined): void {
    if (this.settled) return
    this.stream!.finish()
    // No event at all: say what the server sent instead (an HTML page, a JSON error, a gzip body).
    if (
      this.output.error === NO_VALID_CHUNK_ERROR &&
      this.answer !== undefined &&
      isNotAStream(this.answer)
    ) {
      this.output.error = `${NO_VALID_CHUNK_ERROR} ${describeBodyHead(this.answer)}`
    }
    if (error !== undefined) {
      this.output.success = false
      this.output.error = `Stream error: ${describeFailure(error, this.req, this.abort?.reason)}`
    }
    this.settle()
  }

  private settle(): void {
    this.settled = true
    const output = this.output
    // A failed request keeps the start of its partial text only (stream-limits.ts).
    // A copy, not a slice: V8's sliced string would keep the whole text alive.
    if (!output.success && output.generatedText.length > FAILED_OUTPUT_KEPT_CHARS) {
      const head = output.generatedText.slice(0, FAILED_OUTPUT_KEPT_CHARS)
      output.generatedText = Buffer.from(head, 'utf16le').toString('utf16le')
    }
    this.removeAbortListener?.()
    this.abort?.dispose()
    this.resolve!(this.output)
  }
}
