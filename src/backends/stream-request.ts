import type { request } from 'undici'
import type { RequestOutput } from '../config/records.ts'
import { TextEventTemplate } from './event-template.ts'
import type { HttpClient } from './http.ts'
import { readCachedTokens, readServerMetrics } from './server-details.ts'
import { SSE_DONE } from './sse.ts'
import { StreamDispatch } from './stream-dispatch.ts'
import { bodyPiece, type StreamHandler, TimedStream } from './timed-stream.ts'
import type { BackendRequest } from './types.ts'
import { readUsageCount } from './usage-counts.ts'

/**
 * Reads the generated text of `choices[0]` (completions: `text`; chat: `delta.content`): the value
 * of one string field, unchanged, which the repeat-event fast path (event-template.ts) relies on.
 */
export type ChoiceTextReader = (choice: unknown) => string | undefined

// Error texts live in request-errors.ts; the pooling request and older callers import them here.
export {
  describeError,
  describeFailure,
  ERROR_BODY_MAX_CHARS,
  httpErrorText,
  readErrorBody,
} from './request-errors.ts'

/**
 * Text events a stream may try to learn a template from: a server whose every event differs
 * elsewhere too (a token id, a logprob) costs at most this many extra parses per stream.
 */
const MAX_TEMPLATE_TRIES = 2

/** Python's text, verbatim (no space after the period). */
export const NO_VALID_CHUNK_ERROR =
  'Never received a valid chunk to calculate TTFT.This response will be marked as failed!'

/**
 * Sends one streaming generation request and times it.
 *
 * Timing (Python: `calculate_metrics` inputs, with the Rust fixes): the clock is read once per body
 * chunk as it arrives, before any parsing, and every event the chunk completes shares that stamp.
 * TTFT is the first event with a non-empty `choices`; ITL the gaps between later ones; latency ends
 * at the last one, so a usage-only chunk or `[DONE]` never extends it.
 */
export function sendStreamingRequest(
  req: BackendRequest,
  client: HttpClient,
  body: string | Uint8Array,
  readText: ChoiceTextReader,
  contentType?: string,
): Promise<RequestOutput> {
  return sendStream(
    req,
    client,
    body,
    buildHeaders(req, contentType),
    (startMs, output) => new StreamState(startMs, output, readText),
  )
}

/**
 * Sends one streaming request with the given body and headers, and feeds the body to the handler
 * `createHandler` makes. Errors become a failed output, as in {@link sendStreamingRequest}.
 */
export function sendStream(
  req: BackendRequest,
  client: HttpClient,
  body: string | Uint8Array,
  headers: Record<string, string>,
  createHandler: (startMs: number, output: RequestOutput) => StreamHandler,
): Promise<RequestOutput> {
  const output = pendingOutput(req)
  const abort = createAbort(req)
  const readTimeoutMs = readTimeoutMsOf(req)
  let startMs = 0
  const handler = new StreamDispatch(req, output, abort, (output) => createHandler(startMs, output))
  startMs = performance.now()
  output.startTimeS = startMs / 1000
  try {
    const { origin, path } = originAndPath(req.url)
    client.streamDispatcher.dispatch(
      {
        origin,
        path,
        method: 'POST',
        headers,
        body,
        headersTimeout: readTimeoutMs,
        bodyTimeout: readTimeoutMs,
      },
      handler,
    )
  } catch (error) {
    // As `request()` did: a URL undici cannot send to fails the request, it does not throw.
    handler.onResponseError(undefined, error as Error)
  }
  return handler.done
}

/** undici's `origin` and `path` of a URL, as `request(url)` splits it; the last URL is kept. */
function originAndPath(url: string): { origin: string; path: string } {
  if (url !== lastUrl) {
    const parsed = new URL(url)
    lastUrl = url
    lastOriginAndPath = {
      origin: parsed.origin,
      path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
    }
  }
  return lastOriginAndPath!
}
let lastUrl: string | undefined
let lastOriginAndPath: { origin: string; path: string } | undefined

/** A request's output before it is sent: failed with no error text, no timings, the dataset's prompt length. */
export function pendingOutput(req: BackendRequest): RequestOutput {
  return {
    success: false,
    error: '',
    generatedText: '',
    promptLen: req.promptLen,
    outputTokens: null,
    ttftS: 0,
    itlS: [],
    latencyS: 0,
    startTimeS: 0,
  }
}

/**
 * undici options of a request's POST: its headers and body, the client's dispatcher, the abort
 * signal, and the read timeout for both the headers and each body chunk. Built before the clock
 * starts.
 */
export function postOptions(
  req: BackendRequest,
  client: HttpClient,
  headers: Record<string, string>,
  body: string | Uint8Array,
  abort: Abort | undefined,
): Parameters<typeof request>[1] {
  const readTimeoutMs = readTimeoutMsOf(req)
  return {
    method: 'POST',
    headers,
    body,
    dispatcher: client.dispatcher,
    signal: abort?.signal,
    headersTimeout: readTimeoutMs,
    bodyTimeout: readTimeoutMs,
  }
}

/** undici's per-read timeout for a request: 0 (none) unless `readTimeoutS` is set. */
export function readTimeoutMsOf(req: BackendRequest): number {
  return req.readTimeoutS === undefined ? 0 : Math.max(1, req.readTimeoutS * 1000)
}

/** Header order as Python: Authorization, Content-Type, the `--header` pairs, x-request-id. */
export function buildHeaders(
  req: BackendRequest,
  contentType: string = 'application/json',
): Record<string, string> {
  const headers: Record<string, string> = {}
  if (req.apiKey) headers.Authorization = `Bearer ${req.apiKey}`
  headers['Content-Type'] = contentType
  for (const name in req.headers) setHeader(headers, name, req.headers[name]!)
  setHeader(headers, 'x-request-id', req.requestId)
  return headers
}

/**
 * The handler of one generation stream (what {@link sendStreamingRequest} feeds each body chunk):
 * exported for the micro-benchmarks of the per-chunk path (perf/micro/).
 */
export function createStreamHandler(
  startMs: number,
  output: RequestOutput,
  readText: ChoiceTextReader,
): StreamHandler {
  return new StreamState(startMs, output, readText)
}

/** A completions or chat stream: the `choices`, `usage`, `error` and `metrics` of each event. */
class StreamState extends TimedStream {
  private serverError: string | undefined
  /** The stream's repeated text event, once one was seen (event-template.ts). */
  private template: TextEventTemplate | undefined
  private templateTries = 0
  private readonly readText: ChoiceTextReader

  constructor(startMs: number, output: RequestOutput, readText: ChoiceTextReader) {
    super(startMs, output)
    this.readText = readText
  }

  /** Called once per body chunk, on arrival. */
  override chunk(bytes: Uint8Array, start = 0, end = bytes.byteLength): void {
    const nowMs = this.stamp()
    // A chunk that is one whole repeat of the template, as vLLM writes each event: its text is read
    // from the bytes, and the parser, idle before and after such a chunk, never sees it. Both
    // transports hand over Buffers; any other view goes to the parser.
    const template = this.template
    if (
      template !== undefined &&
      this.serverError === undefined &&
      end - start <= this.limits.maxEventBytes &&
      Buffer.isBuffer(bytes) &&
      this.parser.idle
    ) {
      const text = template.textOfChunk(bytes, start, end)
      if (text !== undefined) {
        this.token(text, nowMs)
        return
      }
    }
    this.parser.feed(bodyPiece(bytes, start, end), this.onData)
  }

  protected failure(): string | undefined {
    return this.serverError ?? (this.sawToken ? undefined : NO_VALID_CHUNK_ERROR)
  }

  protected event(data: string, nowMs: number): void {
    if (data === SSE_DONE || this.serverError !== undefined) return
    const repeated = this.template?.textOf(data)
    if (repeated !== undefined) {
      this.token(repeated, nowMs)
      return
    }
    let message: unknown
    try {
      message = JSON.parse(data)
    } catch {
      return // Rust: a message that is not JSON is skipped.
    }
    if (typeof message !== 'object' || message === null) return
    const { choices, usage, error, metrics } = message as {
      choices?: unknown
      usage?: unknown
      error?: unknown
      metrics?: unknown
    }
    const output = this.output
    if (Array.isArray(choices) && choices.length > 0) {
      const text = this.readText(choices[0])
      this.token(text, nowMs)
      if (
        text &&
        this.template === undefined &&
        this.templateTries < MAX_TEMPLATE_TRIES &&
        (usage === undefined || usage === null) &&
        (error === undefined || error === null) &&
        metrics === undefined
      ) {
        this.templateTries++
        this.template = TextEventTemplate.learn(data, text, this.readText)
      }
    }
    // Not `else`: some servers send choices and usage in the same chunk.
    if (typeof usage === 'object' && usage !== null) {
      const { completion_tokens: completionTokens, prompt_tokens: promptTokens } = usage as {
        completion_tokens?: unknown
        prompt_tokens?: unknown
      }
      const completion = readUsageCount('completion_tokens', completionTokens)
      const prompt = readUsageCount('prompt_tokens', promptTokens)
      if (completion.kind === 'count') output.outputTokens = completion.value
      if (prompt.kind === 'count') output.promptLen = prompt.value
      // An impossible count fails the request (usage-counts.ts); the stream is read on for timing.
      const impossible = completion.kind === 'impossible' ? completion : prompt
      if (impossible.kind === 'impossible') this.serverError = impossible.error
      readCachedTokens(usage, output)
    }
    if (metrics !== undefined) readServerMetrics(metrics, output)
    if (error !== undefined && error !== null) this.serverError = serverErrorText(error)
  }
}

/** One abort signal for a request's timeout and its caller's signal. */
export interface Abort {
  signal: AbortSignal
  reason: () => string | undefined
  /** Stops the wait-for-headers timer. */
  headersArrived: () => void
  dispose: () => void
}

/**
 * One controller for the whole-request timeout, the wait for response headers and the caller's
 * signal; none when none is set. undici's own `headersTimeout` is not applied to the first request
 * on a fresh connection, so the headers wait has its own timer.
 */
export function createAbort(req: BackendRequest): Abort | undefined {
  const { timeoutS, readTimeoutS, signal } = req
  if (timeoutS === undefined && readTimeoutS === undefined) {
    if (signal === undefined) return undefined
    // The caller's signal alone (the runner's per-request one): used as is, no controller and no
    // listener to add and remove per request.
    return {
      signal,
      reason: () => (signal.aborted ? 'request aborted' : undefined),
      headersArrived: noop,
      dispose: noop,
    }
  }
  const controller = new AbortController()
  let reason: string | undefined
  const abort = (why: string): void => {
    if (reason !== undefined) return
    reason = why
    controller.abort(new Error(why))
  }
  const timer =
    timeoutS === undefined
      ? undefined
      : setTimeout(() => abort(`request timed out after ${timeoutS} s`), timeoutS * 1000)
  let headersTimer =
    readTimeoutS === undefined
      ? undefined
      : setTimeout(
          () => abort(`read timed out after ${readTimeoutS} s waiting for response headers`),
          Math.max(1, readTimeoutS * 1000),
        )
  const onAbort = (): void => abort('request aborted')
  if (signal?.aborted) onAbort()
  else signal?.addEventListener('abort', onAbort, { once: true })
  return {
    signal: controller.signal,
    reason: () => reason,
    headersArrived: () => {
      if (headersTimer !== undefined) clearTimeout(headersTimer)
      headersTimer = undefined
    },
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer)
      if (headersTimer !== undefined) clearTimeout(headersTimer)
      signal?.removeEventListener('abort', onAbort)
    },
  }
}

function serverErrorText(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { message, type, code } = error as { message?: unknown; type?: unknown; code?: unknown }
    if (typeof message === 'string') {
      const details = [type, code].filter((part) => part !== undefined && part !== null).join(', ')
      return `Error event in stream: ${message}${details ? ` (${details})` : ''}`
    }
  }
  return `Error event in stream: ${typeof error === 'string' ? error : JSON.stringify(error)}`
}

function noop(): void {}

function setHeader(headers: Record<string, string>, name: string, value: string): void {
  const lower = name.toLowerCase()
  for (const existing in headers) {
    if (existing.toLowerCase() === lower) delete headers[existing]
  }
  headers[name] = value
}
