/**
 * Limits on what one response to a benchmark request may make the client hold, so a hostile or
 * broken server (an endless line, an endless text, an endless JSON body) fails its request instead
 * of exhausting memory. The table of every limit is in docs/errors.md.
 */
import { ConfigError } from '../errors.ts'

/** The limits of one stream. */
export interface StreamLimits {
  /** Largest SSE line or event (its `data` joined), in bytes. */
  maxEventBytes: number
  /** Most characters of generated text kept per request. */
  maxOutputChars: number
  /** Largest non-streamed answer (embeddings, pooling, rerank), in bytes. */
  maxResponseBytes: number
}

/** Environment variables that set the limits. */
export const STREAM_LIMIT_ENV = {
  maxEventBytes: 'SERVEBENCH_MAX_SSE_EVENT_BYTES',
  maxOutputChars: 'SERVEBENCH_MAX_OUTPUT_CHARS',
  maxResponseBytes: 'SERVEBENCH_MAX_RESPONSE_BYTES',
} as const

/**
 * The defaults: far above any real event (a vLLM chunk is well under 1 KiB, a 128k-token
 * logprobs event a few MiB) and any real output, far below what exhausts the heap. A pooling
 * answer is checked as it streams and not kept, so its limit bounds the time spent reading, not
 * memory: three times a batch of 1,000 inputs of 4,096 floats (about 80 MB of JSON).
 */
export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxEventBytes: 16 * 1024 * 1024,
  maxOutputChars: 64 * 1024 * 1024,
  maxResponseBytes: 256 * 1024 * 1024,
}

/**
 * Characters of generated text a failed request keeps (its partial text, in `generated_texts`):
 * enough to see what the server was sending, without one failure filling the result file.
 */
export const FAILED_OUTPUT_KEPT_CHARS = 65_536

/** A stream broke one of its limits; the request fails with this message. */
export class StreamLimitError extends Error {
  override readonly name = 'StreamLimitError'
}

/**
 * The limits from the environment (see {@link STREAM_LIMIT_ENV}), else the defaults. A value that
 * is not a positive integer is a `ConfigError` naming the variable.
 */
export function streamLimitsFrom(
  env: Readonly<Record<string, string | undefined>> = process.env,
): StreamLimits {
  const limits = { ...DEFAULT_STREAM_LIMITS }
  const issues = []
  for (const key of Object.keys(STREAM_LIMIT_ENV) as Array<keyof StreamLimits>) {
    const name = STREAM_LIMIT_ENV[key]
    const raw = env[name]
    if (raw === undefined || raw === '') continue
    const value = Number(raw)
    if (!Number.isSafeInteger(value) || value < 1) {
      issues.push({ path: name, message: `must be a positive integer (got ${JSON.stringify(raw)})` })
    } else {
      limits[key] = value
    }
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return limits
}

/**
 * The limits for one stream: {@link streamLimitsFrom} the environment, or the defaults when a value
 * is bad (a run checks the variables before it sends anything, so a bad one never gets this far).
 */
export function currentStreamLimits(): StreamLimits {
  try {
    return streamLimitsFrom()
  } catch {
    return DEFAULT_STREAM_LIMITS
  }
}

/** The message of a line over the limit: no line break came. */
export function lineTooLargeMessage(limitBytes: number): string {
  return (
    `Stream error: an SSE line exceeded ${limitBytes} bytes without ending ` +
    `(the server sent no line break); raise ${STREAM_LIMIT_ENV.maxEventBytes} if events this large are expected`
  )
}

/** The message of an event whose `data:` lines together went over the limit: no blank line came. */
export function eventTooLargeMessage(limitBytes: number): string {
  return (
    `Stream error: an SSE event's data lines exceeded ${limitBytes} bytes without the blank line ` +
    `that ends an event; raise ${STREAM_LIMIT_ENV.maxEventBytes} if events this large are expected`
  )
}

/** The message of a non-streamed answer over the limit. */
export function responseTooLargeMessage(limitBytes: number): string {
  return (
    `Response error: the response body exceeded ${limitBytes} bytes; ` +
    `raise ${STREAM_LIMIT_ENV.maxResponseBytes} if answers this large are expected`
  )
}

/** The message of a generated text over the limit. */
export function outputTooLargeMessage(limitChars: number): string {
  return (
    `Stream error: the generated text exceeded ${limitChars} characters; ` +
    `raise ${STREAM_LIMIT_ENV.maxOutputChars} if outputs this long are expected`
  )
}
