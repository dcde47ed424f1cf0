import { STATUS_CODES } from 'node:http'
import type { BackendRequest } from './types.ts'

/** Characters of an error response body kept in the error text. */
export const ERROR_BODY_MAX_CHARS = 1000
/** Bytes of an error response body read for the error text. */
export const ERROR_BODY_MAX_BYTES = 4 * ERROR_BODY_MAX_CHARS

/** `HTTP 500 Internal Server Error: <body>` (Rust wording), the body cut to ~1000 characters. */
export function httpErrorText(status: number, body: string): string {
  const reason = STATUS_CODES[status]
  const head = reason ? `HTTP ${status} ${reason}` : `HTTP ${status}`
  const text = body.trim()
  if (text === '') return head
  return `${head}: ${text.length > ERROR_BODY_MAX_CHARS ? `${text.slice(0, ERROR_BODY_MAX_CHARS)}…` : text}`
}

/** The start of an error response body (enough for the error text), as UTF-8. */
export async function readErrorBody(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = []
  let bytes = 0
  try {
    for await (const chunk of body) {
      chunks.push(chunk)
      bytes += chunk.length
      if (bytes >= ERROR_BODY_MAX_BYTES) break
    }
  } catch {
    // The status line is the error; a broken error body adds nothing.
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Why a request failed: its abort reason, an undici timeout in words, or the error chain. */
export function describeFailure(
  error: unknown,
  req: BackendRequest,
  abortReason?: () => string | undefined,
): string {
  const reason = abortReason?.()
  if (reason !== undefined) return reason
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'UND_ERR_BODY_TIMEOUT') return `read timed out after ${req.readTimeoutS} s without data`
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return `read timed out after ${req.readTimeoutS} s waiting for response headers`
  }
  return describeError(error)
}

/** True for undici's wait-for-headers timeout. */
export function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'UND_ERR_HEADERS_TIMEOUT'
}

/** The message, its code when the message lacks it, and each cause on its own line. */
export function describeError(error: unknown): string {
  const lines: string[] = []
  let current: unknown = error
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    lines.push(describeOne(current))
    current = (current as { cause?: unknown }).cause
  }
  return lines.join('\n  Caused by: ')
}

function describeOne(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  let message = error.message
  // Happy-eyeballs connects fail with an AggregateError whose own message is empty.
  if (message === '' && error instanceof AggregateError) {
    message = error.errors.map((inner) => describeOne(inner)).join('; ')
  }
  if (message === '') message = error.name
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message
}
