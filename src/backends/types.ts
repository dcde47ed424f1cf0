import type { BackendName } from '../config/bench-config.ts'
import type { AudioInput, ChatMessage, MediaPart, RequestOutput } from '../config/records.ts'
import type { HttpClient } from './http.ts'

/** Python's `TaskType` of a backend. */
export type BackendTask = 'generation' | 'pooling'

/** One generation request, fully resolved: what a backend sends. */
export interface BackendRequest {
  /** Full URL: `baseUrl + endpointPath`. */
  url: string
  /** Sent as the `x-request-id` header. */
  requestId: string
  /** The body's `model` field (served model name or model id). */
  model: string
  /** Text, or token ids (completions only; chat sends text). */
  prompt: string | number[]
  /** Several inputs in one request (pooling backends); rerank reads `[query, ...documents]`. */
  promptList?: string[]
  /** Chat only: image or video parts sent after the text part of the user message. */
  multiModalContent?: readonly MediaPart[]
  /** Chat only: messages sent as they are, instead of the user message built from `prompt` (BFCL, MLPerf, custom_image). */
  chatMessages?: readonly ChatMessage[]
  /** Body fields of this request (BFCL's `tools`), merged after `extraBody`, so they win. */
  requestOverrides?: Record<string, unknown>
  /** openai-audio: the dataset's audio file, sent instead of synthetic audio; openai-chat: an `input_audio` part. */
  audio?: AudioInput
  /** The dataset's prompt length; replaced by `usage.prompt_tokens` when the server reports it. */
  promptLen: number
  /** `max_tokens` (completions) or `max_completion_tokens` (chat). */
  outputLen: number
  /** Adds `"ignore_eos": true` when set. */
  ignoreEos: boolean
  /** Completions only; always sent, `null` when unset. */
  logprobs?: number
  /** Sampling params already merged with `--extra-body`; merged into the body last. */
  extraBody: Record<string, unknown>
  /** `--header` pairs, applied after `Authorization` and `Content-Type`. */
  headers: Record<string, string>
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string
  /** Whole-request timeout in seconds; undefined = none. */
  timeoutS?: number
  /** Longest silence allowed while waiting for headers or between body chunks; undefined = none. */
  readTimeoutS?: number
  /** Aborting fails the request with an error text saying it was aborted. */
  signal?: AbortSignal
  /** Told when the request fails before the first byte of a response body (runner/retry.ts decides on a retry). */
  onEarlyFailure?(failure: EarlyFailure): void
}

/** A failure before any response body byte: no response at all, or a non-2xx status. */
export type EarlyFailure =
  /** Connect refused, socket reset or closed before the headers; `timedOut` for a timeout or an abort. */
  | { kind: 'connect'; timedOut: boolean }
  /** A non-2xx answer; `retryAfter` is its raw `Retry-After` header. */
  | { kind: 'status'; status: number; retryAfter?: string }

/** A generation API: builds the body, sends it, reads the stream, times it. */
export interface Backend {
  readonly name: BackendName
  /** `/v1/completions` or `/v1/chat/completions`. */
  readonly defaultEndpointPath: string
  /**
   * Python's `TaskType`: `generation` backends stream tokens; `pooling` backends (embeddings,
   * pooling, rerank) answer once and get the pooling metrics and result keys.
   */
  readonly task: BackendTask
  /** Never throws for HTTP, network or stream problems: those give `success: false` and an `error`. */
  send(request: BackendRequest, client: HttpClient): Promise<RequestOutput>
}
