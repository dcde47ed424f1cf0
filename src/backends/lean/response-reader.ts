/**
 * The response side of HTTP/1.1 (RFC 9112) for the lean transport: a push parser fed the bytes
 * of one socket, in whatever pieces they arrive. It finds the status line and headers (1xx
 * answers skipped), then the body by `Content-Length`, `Transfer-Encoding: chunked` (extensions
 * and trailers read and dropped) or the end of the connection, and hands each body piece on as
 * a range of the bytes it was given: no copy, so a sink keeps only what it copies itself.
 * Malformed framing throws undici's own error classes, so the error texts stay the same.
 */
import { errors } from 'undici'
import { headerText } from '../request-errors.ts'
import { HTTP_TOKEN } from './request-head.ts'

/** The response headers as undici gives them: lower-case names, a repeated header as an array. */
export type ResponseHeaders = Record<string, string | string[]>

/** Where the reader sends what it finds. A callback may call {@link ResponseReader.stop}. */
export interface ResponseSink {
  /** The final (non-1xx) status line and headers. */
  onHead(statusCode: number, headers: ResponseHeaders): void
  /**
   * A piece of the body, `bytes[start, end)` of the pushed buffer: valid only during the call (a
   * socket's read buffer is reused), so a sink keeps only what it copies. No view is made per
   * piece: a Buffer view (`subarray`) was 96 of the ~230 bytes the client allocated per event.
   */
  onData(bytes: Buffer, start: number, end: number): void
  /** The body ended (trailers, if any, were read). */
  onEnd(): void
}

/** Limits on what a server can make the reader hold. */
export interface ResponseReaderLimits {
  /** Bytes of the status line and headers together, and of the trailers together. */
  maxHeaderBytes: number
  /** Bytes of one chunk-size line, extensions included. */
  maxChunkLineBytes: number
}

/** Node's and undici's default header limit (`--max-http-header-size`). */
export const DEFAULT_READER_LIMITS: ResponseReaderLimits = {
  maxHeaderBytes: 16 * 1024,
  maxChunkLineBytes: 4 * 1024,
}

const LF = 0x0a
const CR = 0x0d
/** Hex digits of the largest chunk size accepted (2^52 - 1 bytes: a safe integer). */
const MAX_CHUNK_SIZE_DIGITS = 13
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?:[ \t].*)?$/
const SPACE = 0x20
const TAB = 0x09
const SEMICOLON = 0x3b
/** Where a chunk-size line is: its digits, spaces after them, an extension, a CR before the LF. */
const SIZE_DIGITS = 0
const SIZE_SPACES = 1
const SIZE_EXTENSION = 2
const SIZE_CR = 3

type State =
  | 'head'
  | 'length'
  | 'chunk-size'
  | 'chunk-data'
  | 'chunk-end'
  | 'trailers'
  | 'until-close'
  | 'done'
  | 'stopped'

/**
 * Reads one response from a socket's bytes. {@link push} each read; {@link end} when the socket
 * ended. After the response, {@link keepAlive} says whether the socket may carry another request.
 */
export class ResponseReader {
  private state: State = 'head'
  /** The current line, when it spans reads. */
  private line = ''
  private lineBytes = 0
  private sizeDigits = 0
  private sizePhase = SIZE_DIGITS
  /** The CR after a chunk's data was read; its LF is next. */
  private chunkCr = false
  /** Bytes of the head (or of the trailers) so far. */
  private headBytes = 0
  private lines: string[] = []
  private left = 0
  private http10 = false
  private closeAfter = false
  /** Bytes arrived after the response ended: the socket cannot be reused. */
  private extra = false
  private readonly sink: ResponseSink
  private readonly limits: ResponseReaderLimits

  constructor(sink: ResponseSink, limits: ResponseReaderLimits = DEFAULT_READER_LIMITS) {
    this.sink = sink
    this.limits = limits
  }

  /** True once the response was read to its end. */
  get done(): boolean {
    return this.state === 'done'
  }

  /** True when the response ended and its framing lets the socket carry the next request. */
  get keepAlive(): boolean {
    return this.state === 'done' && !this.closeAfter && !this.extra
  }

  /** True once any byte of the response arrived. */
  get started(): boolean {
    return this.state !== 'head' || this.headBytes > 0 || this.lineBytes > 0
  }

  /** Stops reading: nothing more reaches the sink (the request was aborted). */
  stop(): void {
    if (this.state !== 'done') this.state = 'stopped'
  }

  /** Reads `buf[start, end)`. Throws an undici error on malformed framing. */
  push(buf: Buffer, start = 0, end: number = buf.length): void {
    let i = start
    while (i < end) {
      switch (this.state) {
        case 'length': {
          const take = Math.min(this.left, end - i)
          this.left -= take
          const to = i + take
          this.sink.onData(buf, i, to)
          i = to
          if (this.left === 0 && this.state === 'length') this.finish()
          break
        }
        case 'chunk-data': {
          const take = Math.min(this.left, end - i)
          this.left -= take
          const to = i + take
          this.sink.onData(buf, i, to)
          i = to
          if (this.left === 0 && this.state === 'chunk-data') this.state = 'chunk-end'
          break
        }
        case 'until-close': {
          this.sink.onData(buf, i, end)
          i = end
          break
        }
        case 'chunk-size':
          i = this.chunkSize(buf, i, end)
          break
        case 'chunk-end':
          i = this.chunkEnd(buf, i)
          break
        case 'done':
          this.extra = true
          return
        case 'stopped':
          return
        default:
          i = this.readLine(buf, i, end)
      }
    }
  }

  /** The socket ended: completes a read-until-close body, else throws `other side closed`. */
  end(): void {
    if (this.state === 'until-close') {
      this.finish()
      return
    }
    if (this.state === 'done' || this.state === 'stopped') return
    throw new errors.SocketError('other side closed')
  }

  /** Reads up to the end of a line (or of the buffer); handles it when it ends. */
  private readLine(buf: Buffer, i: number, end: number): number {
    const lf = buf.indexOf(LF, i)
    const stop = lf < 0 || lf >= end ? end : lf
    const bytes = stop - i
    this.headBytes += bytes + (stop < end ? 1 : 0)
    if (this.headBytes > this.limits.maxHeaderBytes) throw new errors.HeadersOverflowError()
    this.lineBytes += bytes
    const piece = buf.toString('latin1', i, stop)
    if (stop === end) {
      this.line += piece
      return end
    }
    let text = this.line + piece
    this.line = ''
    this.lineBytes = 0
    if (text.charCodeAt(text.length - 1) === CR) text = text.slice(0, -1)
    this.handleLine(text)
    return stop + 1
  }

  /**
   * Reads a chunk-size line byte by byte (no string per chunk): hex digits, optional spaces, then
   * an extension after `;` (skipped), then CRLF or LF. Returns where it stopped.
   */
  private chunkSize(buf: Buffer, i: number, end: number): number {
    const max = this.limits.maxChunkLineBytes
    while (i < end) {
      const byte = buf[i++]!
      if (++this.lineBytes > max) throw parserError('Chunk size line too long')
      const phase = this.sizePhase
      if (byte === LF) {
        if (this.sizeDigits === 0) throw parserError('Invalid character in chunk size')
        this.sizePhase = SIZE_DIGITS
        this.sizeDigits = 0
        this.lineBytes = 0
        if (this.left === 0) {
          this.state = 'trailers'
          this.headBytes = 0
        } else {
          this.state = 'chunk-data'
        }
        return i
      }
      if (phase === SIZE_EXTENSION) continue
      if (phase === SIZE_CR) throw parserError('Invalid character in chunk size')
      if (byte === CR) {
        this.sizePhase = SIZE_CR
        continue
      }
      if (phase === SIZE_DIGITS) {
        const digit = hexValue(byte)
        if (digit >= 0) {
          if (++this.sizeDigits > MAX_CHUNK_SIZE_DIGITS) throw parserError('Invalid character in chunk size')
          this.left = this.left * 16 + digit
          continue
        }
      }
      if (this.sizeDigits === 0) throw parserError('Invalid character in chunk size')
      if (byte === SPACE || byte === TAB) this.sizePhase = SIZE_SPACES
      else if (byte === SEMICOLON) this.sizePhase = SIZE_EXTENSION
      else throw parserError('Invalid character in chunk size')
    }
    return i
  }

  /** The CRLF (or LF) after a chunk's data. */
  private chunkEnd(buf: Buffer, i: number): number {
    const byte = buf[i]
    if (byte === LF) {
      this.state = 'chunk-size'
      this.chunkCr = false
    } else if (byte === CR && !this.chunkCr) {
      this.chunkCr = true
    } else {
      throw parserError('Expected LF after chunk data')
    }
    return i + 1
  }

  private handleLine(text: string): void {
    switch (this.state) {
      case 'head':
        if (text !== '') this.lines.push(text)
        else if (this.lines.length > 0) this.headEnded()
        // A blank line before the status line is tolerated (RFC 9112 §2.2).
        return
      case 'trailers':
        if (text === '') this.finish()
        return
      default:
        return
    }
  }

  private headEnded(): void {
    const [statusLine, ...fields] = this.lines
    this.lines = []
    this.headBytes = 0
    const status = STATUS_LINE.exec(statusLine!)
    if (status === null) throw parserError('Expected HTTP/, RTSP/ or ICE/')
    const statusCode = Number(status[2])
    const headers: ResponseHeaders = {}
    for (const field of fields) {
      const colon = field.indexOf(':')
      const name = colon > 0 ? field.slice(0, colon) : ''
      if (!HTTP_TOKEN.test(name)) throw parserError('Invalid header token')
      const key = name.toLowerCase()
      const value = field.slice(colon + 1).trim()
      const seen = headers[key]
      if (seen === undefined) headers[key] = value
      else if (Array.isArray(seen)) seen.push(value)
      else headers[key] = [seen, value]
    }
    if (statusCode < 200) return // 1xx: the answer follows on the same socket.
    this.http10 = status[1] === '0'
    const connection = headerText(headers.connection)?.toLowerCase()
    this.closeAfter = this.http10
      ? connection !== 'keep-alive'
      : /(^|[\s,])close($|[\s,])/.test(connection ?? '')
    this.state = this.framing(statusCode, headers)
    this.sink.onHead(statusCode, headers)
    if (this.state === 'done') this.finish()
  }

  /** How the body is delimited (RFC 9112 §6.3). */
  private framing(statusCode: number, headers: ResponseHeaders): State {
    const te = headerText(headers['transfer-encoding'])
    const cl = headers['content-length']
    if (statusCode === 204 || statusCode === 304) return 'done'
    if (te !== undefined) {
      if (cl !== undefined) {
        throw parserError("Content-Length can't be present with Transfer-Encoding")
      }
      const codings = te.toLowerCase().split(',')
      if (codings[codings.length - 1]!.trim() === 'chunked') return 'chunk-size'
      this.closeAfter = true
      return 'until-close'
    }
    if (cl !== undefined) {
      if (Array.isArray(cl) || !/^\d{1,15}$/.test(cl)) {
        throw new errors.ResponseContentLengthMismatchError()
      }
      this.left = Number(cl)
      return this.left === 0 ? 'done' : 'length'
    }
    this.closeAfter = true
    return 'until-close'
  }

  private finish(): void {
    this.state = 'done'
    this.sink.onEnd()
  }
}

/**
 * undici's parser error, `Response does not match the HTTP/1.1 protocol (<llhttp's reason>)`, as
 * undici 7 raises it: without a code, so the error text is the same on both transports.
 */
function parserError(reason: string): Error {
  return new errors.HTTPParserError(`Response does not match the HTTP/1.1 protocol (${reason})`)
}

/** The value of a hex digit's byte, or -1. */
function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  const lower = byte | 0x20
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1
}
