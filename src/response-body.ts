/**
 * Bounded reads of the response bodies the client reads whole: everything but the SSE streams,
 * which backends/sse.ts bounds line by line. Each route has a cap (docs/errors.md, "Limits"); a
 * body is read chunk by chunk and dropped at its cap with a {@link ResponseTooLargeError}, so the
 * memory one answer can take is its cap, whatever the server sends. Auxiliary requests (models,
 * tokenize, detokenize, metrics, profiler, prefix-cache reset) also share the run's timeouts here.
 */

/** Caps of the auxiliary routes, in bytes. The benchmark's own answers are capped in backends/stream-limits.ts. */
export const AUX_BODY_LIMITS = {
  /** `GET /v1/models`: vLLM lists a few models; a gateway lists thousands in under 2 MiB. */
  modelsBytes: 16 * 1024 * 1024,
  /** `GET /metrics`: tens of KiB from vLLM. */
  metricsBytes: 16 * 1024 * 1024,
  /** An answer read only for a message (`/start_profile`, `/reset_prefix_cache`). */
  messageBytes: 64 * 1024,
  /** A JSON document from the Hugging Face hub API or the datasets server. */
  hubJsonBytes: 64 * 1024 * 1024,
  /** An image a dataset names by `http(s)://` URL. */
  imageBytes: 64 * 1024 * 1024,
} as const

/** The base of the `/tokenize` and `/detokenize` caps: room for the fields around the tokens. */
const TOKEN_REPLY_BASE_BYTES = 1024 * 1024
/** A prompt byte is at most one token, and a token id at most 16 bytes of JSON (`1234567, `). */
const TOKENIZE_BYTES_PER_PROMPT_BYTE = 16
/** A token is at most a few dozen bytes of text, each at most 6 bytes of JSON (`\u00XX`). */
const DETOKENIZE_BYTES_PER_TOKEN = 1024

/** A body over its cap: the reading stopped there and the rest was dropped with the connection. */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError'
  readonly limitBytes: number
  constructor(what: string, limitBytes: number, hint = '') {
    super(`${what} answered more than ${limitBytes} bytes${hint}`)
    this.limitBytes = limitBytes
  }
}

/** A response body as undici gives it: chunks, and a way to drop the rest. */
export type ResponseBody = AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown }

/** The cap of a `/tokenize` answer for `prompt`: its ids cannot outnumber its UTF-8 bytes. */
export function tokenizeReplyMaxBytes(prompt: string): number {
  return TOKEN_REPLY_BASE_BYTES + TOKENIZE_BYTES_PER_PROMPT_BYTE * Buffer.byteLength(prompt, 'utf8')
}

/** The cap of a `/detokenize` answer for `tokenCount` tokens. */
export function detokenizeReplyMaxBytes(tokenCount: number): number {
  return TOKEN_REPLY_BASE_BYTES + DETOKENIZE_BYTES_PER_TOKEN * tokenCount
}

/**
 * The whole body, read chunk by chunk; more than `maxBytes` (or a `content-length` that says so)
 * throws a {@link ResponseTooLargeError} naming `what` and drops the rest. `hint` ends the message
 * (the variable that raises the cap).
 */
export async function readBodyCapped(
  body: ResponseBody,
  maxBytes: number,
  what: string,
  options: { contentLength?: string | string[] | undefined; hint?: string } = {},
): Promise<Buffer> {
  const declared = Number(options.contentLength)
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy()
    throw new ResponseTooLargeError(what, maxBytes, options.hint)
  }
  const chunks: Uint8Array[] = []
  let bytes = 0
  for await (const chunk of body) {
    bytes += chunk.byteLength
    // Leaving the loop destroys the body through its iterator: the rest is never read.
    if (bytes > maxBytes) throw new ResponseTooLargeError(what, maxBytes, options.hint)
    chunks.push(chunk)
  }
  const whole = Buffer.concat(chunks, bytes)
  chunks.length = 0
  return whole
}

/** {@link readBodyCapped} as UTF-8 text. */
export async function readTextCapped(
  body: ResponseBody,
  maxBytes: number,
  what: string,
  options: { contentLength?: string | string[] | undefined; hint?: string } = {},
): Promise<string> {
  return (await readBodyCapped(body, maxBytes, what, options)).toString('utf8')
}

/**
 * Up to `maxBytes` of a body, for a message (an error answer, a profiler's reply): the rest is
 * dropped, and a body that breaks off gives what arrived.
 */
export async function readBodyHead(body: ResponseBody, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = []
  let bytes = 0
  try {
    for await (const chunk of body) {
      chunks.push(chunk)
      bytes += chunk.byteLength
      if (bytes >= maxBytes) break
    }
  } catch {
    // What arrived is the message.
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8')
}

/** The run's timeouts, as the flags give them: `--request-timeout` and `--read-timeout`. */
export interface AuxTimeouts {
  /** Whole request, seconds. */
  timeoutS?: number | undefined
  /** Longest silence waiting for headers or between chunks, seconds. */
  readTimeoutS?: number | undefined
}

/**
 * undici options that bound an auxiliary request by the run's timeouts. Its answer comes in one
 * piece, so the whole exchange is bounded by `--request-timeout`, else by `--read-timeout`, else
 * by `defaultMs`; `--read-timeout` (else the same bound) is also the wait for headers and between
 * chunks. undici's `headersTimeout` does not cover the first request on a fresh connection: the
 * signal does.
 */
export function auxRequestOptions(
  timeouts: AuxTimeouts,
  defaultMs: number,
  signal?: AbortSignal,
): { headersTimeout: number; bodyTimeout: number; signal: AbortSignal } {
  const { perReadMs, wholeMs } = auxTimeoutMs(timeouts, defaultMs)
  const limit = AbortSignal.timeout(wholeMs)
  return {
    headersTimeout: perReadMs,
    bodyTimeout: perReadMs,
    signal: signal ? AbortSignal.any([limit, signal]) : limit,
  }
}

/** The bounds {@link auxRequestOptions} applies, in milliseconds. */
export function auxTimeoutMs(
  timeouts: AuxTimeouts,
  defaultMs: number,
): { perReadMs: number; wholeMs: number } {
  const toMs = (s: number | undefined): number | undefined =>
    s === undefined ? undefined : Math.max(1, Math.ceil(s * 1000))
  const readMs = toMs(timeouts.readTimeoutS)
  const requestMs = toMs(timeouts.timeoutS)
  return { perReadMs: readMs ?? requestMs ?? defaultMs, wholeMs: requestMs ?? readMs ?? defaultMs }
}

/** True for the errors of an auxiliary request cut by its time bounds (undici's timeouts, the signal's). */
export function isAuxTimeout(error: unknown): boolean {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown }
  return name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'
}
