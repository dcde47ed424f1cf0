import type { RequestOutput } from '../config/records.ts'
import type { HttpClient } from './http.ts'
import { SSE_DONE } from './sse.ts'
import { buildHeaders, sendStream } from './stream-request.ts'
import { TimedStream } from './timed-stream.ts'
import type { Backend, BackendRequest } from './types.ts'
import { readUsageCount } from './usage-counts.ts'

/** Path of the OpenAI Responses API. */
export const RESPONSES_PATH = '/v1/responses'

/** A 200 stream that never carried a text or reasoning delta. */
export const NO_TOKEN_DELTA_ERROR =
  'Never received a token delta to calculate TTFT. This response will be marked as failed!'

/** A stream that ended without `response.completed` or `response.incomplete`. */
export const NO_TERMINAL_EVENT_ERROR =
  'Stream ended without a terminal event (response.completed or response.incomplete); the response is incomplete'

/** The `openai-responses` backend: streamed `/v1/responses` with its typed events. */
export const responsesBackend: Backend = {
  name: 'openai-responses',
  defaultEndpointPath: RESPONSES_PATH,
  task: 'generation',
  send(request: BackendRequest, client: HttpClient): Promise<RequestOutput> {
    return sendStream(
      request,
      client,
      JSON.stringify(buildResponsesBody(request)),
      buildHeaders(request),
      (startMs, output) => new ResponsesStream(startMs, output),
    )
  },
}

/**
 * `{model, input, max_output_tokens, stream: true, store: false}`, then `ignore_eos` when set, then
 * `extraBody`. `store: false` keeps a server with a response store from keeping every response.
 * Rust: `openai-responses` (backends/responses.rs); Python: the open Responses PR.
 */
export function buildResponsesBody(request: BackendRequest): Record<string, unknown> {
  if (typeof request.prompt !== 'string') {
    throw new TypeError('openai-responses sends text prompts, got token ids. This is a bug in servebench.')
  }
  const body: Record<string, unknown> = {
    model: request.model,
    input: request.prompt,
    max_output_tokens: request.outputLen,
    stream: true,
    store: false,
  }
  if (request.ignoreEos) body.ignore_eos = true
  return Object.assign(body, request.extraBody)
}

interface ResponsesEvent {
  type?: unknown
  delta?: unknown
  response?: { usage?: { output_tokens?: unknown; input_tokens?: unknown } | null; error?: unknown } | null
  error?: unknown
}

/**
 * Reads the typed events of one Responses stream. A text or reasoning delta is a token (TTFT, ITL);
 * only text deltas add to the text. `response.completed` / `response.incomplete` end it and carry
 * `usage.output_tokens`; `error`, `response.failed` or any top-level `error` fail it.
 */
class ResponsesStream extends TimedStream {
  private terminal = false
  private streamError: string | undefined

  protected failure(): string | undefined {
    if (this.streamError !== undefined) return this.streamError
    if (!this.sawToken) return NO_TOKEN_DELTA_ERROR
    return this.terminal ? undefined : NO_TERMINAL_EVENT_ERROR
  }

  protected event(data: string, nowMs: number): void {
    if (data === SSE_DONE || this.streamError !== undefined) return
    let message: ResponsesEvent
    try {
      message = JSON.parse(data) as ResponsesEvent
    } catch {
      return
    }
    if (typeof message !== 'object' || message === null) return
    const type = message.type
    if (type === 'response.output_text.delta' || type === 'response.reasoning_text.delta') {
      const text = type === 'response.output_text.delta' ? message.delta : undefined
      this.token(typeof text === 'string' ? text : undefined, nowMs)
    } else if (type === 'response.completed' || type === 'response.incomplete') {
      this.terminal = true
      const usage = message.response?.usage
      const output = readUsageCount('output_tokens', usage?.output_tokens)
      const input = readUsageCount('input_tokens', usage?.input_tokens)
      if (output.kind === 'count') this.output.outputTokens = output.value
      if (input.kind === 'count') this.output.promptLen = input.value
      const impossible = output.kind === 'impossible' ? output : input
      if (impossible.kind === 'impossible') this.streamError = impossible.error
    }
    if (
      type === 'error' ||
      type === 'response.failed' ||
      (message.error !== undefined && message.error !== null)
    ) {
      const detail = message.error ?? message.response?.error ?? data
      this.streamError = `Error event in stream: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`
    }
  }
}
