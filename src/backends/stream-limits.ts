/**
 * Limits on what one streamed response may make the client hold, so a hostile or broken server
 * (an endless line, an endless text) fails its request instead of exhausting memory.
 */
import { ConfigError } from '../errors.ts'

/** The limits of one stream. */
export interface StreamLimits {
  /** Largest SSE line or event (its `data` joined), in bytes. */
  maxEventBytes: number
  /** Most characters of generated text kept per request. */
  maxOutputChars: number
}

/** Environment variables that set the limits. */
export const STREAM_LIMIT_ENV = {
  maxEventBytes: 'SERVEBENCH_MAX_SSE_EVENT_BYTES',
  maxOutputChars: 'SERVEBENCH_MAX_OUTPUT_CHARS',
} as const

/**
 * The defaults: far above any real event (a vLLM chunk is well under 1 KiB, a 128k-token
 * logprobs event a few MiB) and any real output, far below what exhausts the heap.
 */
export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxEventBytes: 16 * 1024 * 1024,
  maxOutputChars: 64 * 1024 * 1024,
}

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

/** The message of a line or event over the limit. */
export function eventTooLargeMessage(limitBytes: number): string {
  return (
    `Stream error: an SSE line or event exceeded ${limitBytes} bytes without ending ` +
    `(the server sent no line break); raise ${STREAM_LIMIT_ENV.maxEventBytes} if events this large are expected`
  )
}

/** The message of a generated text over the limit. */
export function outputTooLargeMessage(limitChars: number): string {
  return (
    `Stream error: the generated text exceeded ${limitChars} characters; ` +
    `raise ${STREAM_LIMIT_ENV.maxOutputChars} if outputs this long are expected`
  )
}
