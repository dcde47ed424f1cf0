/**
 * The request side of HTTP/1.1 for the lean transport: the request line and headers of a POST
 * (or any method) with a `Content-Length` body, as undici writes them. A header name or value
 * that would split the head (CR, LF, NUL) is refused with undici's own error, before any byte is
 * written.
 */
import type { Dispatcher } from 'undici'
import { errors } from 'undici'

/** An HTTP token (RFC 9110 §5.6.2): a method or a header name. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const SPLITS_HEAD = /[\r\n\0]/

/** The body as bytes or a string (undici `DispatchOptions.body`, as servebench sends it). */
export type RequestBody = string | Uint8Array | null | undefined

/**
 * `METHOD path HTTP/1.1`, `host` (unless the caller set one), the caller's headers and
 * `content-length`, then the blank line. Throws `InvalidArgumentError` on a bad name or value.
 */
export function requestHead(
  method: string,
  path: string,
  host: string,
  headers: Dispatcher.DispatchOptions['headers'],
  bodyBytes: number,
): string {
  if (!HTTP_TOKEN.test(method)) throw new errors.InvalidArgumentError('invalid request method')
  if (path[0] !== '/' || SPLITS_HEAD.test(path) || path.includes(' ')) {
    throw new errors.InvalidArgumentError('invalid request path')
  }
  let fields = ''
  let hasHost = false
  const add = (name: string, value: unknown): void => {
    if (!HTTP_TOKEN.test(name)) throw new errors.InvalidArgumentError('invalid header key')
    const lower = name.toLowerCase()
    if (lower === 'content-length' || lower === 'transfer-encoding') return // the body decides them
    if (lower === 'host') hasHost = true
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one === undefined || one === null) continue
      const text = String(one)
      if (SPLITS_HEAD.test(text)) throw new errors.InvalidArgumentError(`invalid ${name} header`)
      fields += `${name}: ${text}\r\n`
    }
  }
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) add(String(headers[i]), headers[i + 1])
  } else if (headers !== null && headers !== undefined) {
    if (Symbol.iterator in headers) {
      for (const [name, value] of headers as Iterable<[string, unknown]>) add(name, value)
    } else {
      for (const name in headers) add(name, (headers as Record<string, unknown>)[name])
    }
  }
  const hostField = hasHost ? '' : `host: ${host}\r\n`
  return `${method} ${path} HTTP/1.1\r\n${hostField}${fields}content-length: ${bodyBytes}\r\n\r\n`
}

/** Bytes of a body. */
export function bodyBytesOf(body: RequestBody): number {
  if (body === null || body === undefined) return 0
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
}
