import { STATUS_CODES } from 'node:http'
import type { BackendRequest } from './types.ts'

/** Characters of an error response body kept in the error text. */
export const ERROR_BODY_MAX_CHARS = 1000
/** Bytes of an error response body read for the error text. */
export const ERROR_BODY_MAX_BYTES = 4 * ERROR_BODY_MAX_CHARS

/**
 * `HTTP 500 Internal Server Error: <body>` (Rust wording), the body cut to ~1000 characters. A
 * content type other than JSON or plain text (a proxy's HTML page) is named after the status.
 */
export function httpErrorText(status: number, body: string, contentType?: string): string {
  const reason = STATUS_CODES[status]
  const type = contentType?.split(';')[0]?.trim().toLowerCase()
  const named = type !== undefined && type !== '' && type !== 'text/plain' && !/[/+]json$/.test(type)
  const head = `${reason ? `HTTP ${status} ${reason}` : `HTTP ${status}`}${named ? ` (${contentType})` : ''}`
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

/** Bytes of a 2xx body kept to describe it when it holds no event. */
export const BODY_HEAD_BYTES = 512

/** What a 2xx answer said about itself, and the first bytes of its body. */
export interface BodyHead {
  status: number
  contentType: string | undefined
  contentEncoding: string | undefined
  head: Buffer[]
  headBytes: number
  totalBytes: number
}

/** A header's value as one string (undici gives an array for a repeated header). */
export function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}

/** True when a 2xx answer is not an SSE stream: another type, an encoding, or no `data:` line. */
export function isNotAStream(answer: BodyHead): boolean {
  const encoded = answer.contentEncoding !== undefined && answer.contentEncoding !== 'identity'
  const type = answer.contentType?.split(';')[0]?.trim().toLowerCase()
  return encoded || type !== 'text/event-stream' || !Buffer.concat(answer.head).includes('data:')
}

/**
 * The server's own words when a 2xx answer held no event: `Server answered HTTP 200 (text/html, 2048
 * bytes): <!doctype html>…`, with an unasked-for encoding named rather than its bytes shown.
 */
export function describeBodyHead(answer: BodyHead): string {
  const type = answer.contentType ?? 'no content-type'
  const what = `Server answered HTTP ${answer.status} (${type}, ${answer.totalBytes} bytes)`
  if (answer.contentEncoding !== undefined && answer.contentEncoding !== 'identity') {
    return `${what} with content-encoding ${answer.contentEncoding}, which servebench did not ask for and does not decode`
  }
  const text = Buffer.concat(answer.head)
    .toString('utf8')
    .replace(/\uFFFD+$/, '')
    .trim()
  if (text === '') return `${what} with an empty body`
  // Control characters (a binary body) are shown escaped, so the text stays one printable line.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes.
  const shown = text.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1))
  const cut = answer.totalBytes > answer.headBytes ? '…' : ''
  return `${what}: ${shown}${cut}`
}
