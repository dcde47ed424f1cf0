/**
 * One keep-alive socket of the lean transport (node:net, or node:tls for https:), carrying one
 * request at a time. Reads go into one buffer shared by every socket (`onread`): no Buffer is
 * allocated per read, and each read is handed on before the next can arrive. Applies undici's
 * timeouts: connect, `headersTimeout` (request written → headers) and `bodyTimeout` (between
 * reads), with undici's error classes. A socket is offered back only after its response was read
 * to the end and its framing allows another request.
 */
import { isIP, connect as netConnect, type Socket } from 'node:net'
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls'
import { errors } from 'undici'
import type { Exchange, ExchangeHolder } from './exchange.ts'
import { type ResponseHeaders, ResponseReader, type ResponseSink } from './response-reader.ts'

/** Where a connection goes and how. */
export interface ConnectionTarget {
  tls: boolean
  hostname: string
  port: number
  /** Accept any certificate (`--insecure`). */
  insecure: boolean
  connectTimeoutMs: number
  /** How long an idle socket is kept, at most (a server's `Keep-Alive: timeout` may shorten it). */
  keepAliveTimeoutMs: number
}

/** What the pool hears from its connections. */
export interface ConnectionOwner {
  /** The response was read to its end and the socket can take the next request. */
  idle(connection: LeanConnection): void
  /** The socket closed (or was closed); the connection is gone. */
  gone(connection: LeanConnection): void
}

/** The read buffer every socket shares; 64 KiB, as libuv's own reads. */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024)
/** undici's margin under a server's keep-alive hint, so the client closes first. */
const KEEP_ALIVE_MARGIN_MS = 1_000

export class LeanConnection implements ResponseSink, ExchangeHolder {
  private readonly socket: Socket
  private readonly owner: ConnectionOwner
  private readonly target: ConnectionTarget
  private exchange: Exchange | undefined
  private reader: ResponseReader | undefined
  private closed = false
  private connectTimer: NodeJS.Timeout | undefined
  private headersTimer: NodeJS.Timeout | undefined
  private bodyTimer: NodeJS.Timeout | undefined
  private idleTimer: NodeJS.Timeout | undefined
  private lastReadMs = 0
  private keepAliveMs: number

  constructor(target: ConnectionTarget, owner: ConnectionOwner) {
    this.target = target
    this.owner = owner
    this.keepAliveMs = target.keepAliveTimeoutMs
    const onread = {
      buffer: READ_BUFFER,
      callback: (bytes: number, buffer: Uint8Array): boolean => {
        this.received(buffer as Buffer, bytes)
        return true
      },
    }
    const { hostname, port } = target
    this.socket = target.tls
      ? tlsConnect({
          host: hostname,
          port,
          // SNI takes a host name, never an address.
          ...(isIP(hostname) !== 0 ? {} : { servername: hostname }),
          rejectUnauthorized: !target.insecure,
          ALPNProtocols: ['http/1.1'],
          onread,
        } as ConnectionOptions)
      : netConnect({ host: hostname, port, noDelay: true, onread })
    if (target.tls) this.socket.setNoDelay(true)
    this.connectTimer = setTimeout(() => {
      const address = `${hostname}:${port}`
      this.destroy(
        new errors.ConnectTimeoutError(
          `Connect Timeout Error (attempted address: ${address}, timeout: ${target.connectTimeoutMs}ms)`,
        ),
      )
    }, target.connectTimeoutMs)
    this.socket.once(target.tls ? 'secureConnect' : 'connect', () => {
      clearTimeout(this.connectTimer)
      this.connectTimer = undefined
    })
    this.socket.on('error', (error) => this.destroy(error))
    this.socket.on('end', () => this.ended())
    this.socket.on('close', () => this.destroy(new errors.SocketError('other side closed')))
  }

  /** Sends `exchange`'s request on this socket. */
  send(exchange: Exchange): void {
    if (this.idleTimer !== undefined) {
      clearTimeout(this.idleTimer)
      this.idleTimer = undefined
      this.socket.ref()
    }
    this.exchange = exchange
    exchange.holder = this
    this.reader = new ResponseReader(this)
    const { body } = exchange
    if (typeof body === 'string') {
      this.socket.write(exchange.head + body)
    } else {
      this.socket.cork()
      this.socket.write(exchange.head)
      if (body !== null && body !== undefined && body.byteLength > 0) this.socket.write(body)
      this.socket.uncork()
    }
    if (exchange.headersTimeoutMs > 0) {
      this.headersTimer = setTimeout(
        () => this.destroy(new errors.HeadersTimeoutError()),
        exchange.headersTimeoutMs,
      )
    }
  }

  onHead(statusCode: number, headers: ResponseHeaders): void {
    this.clearHeadersTimer()
    const exchange = this.exchange!
    const hint = /timeout=(\d+)/.exec(String(headers['keep-alive'] ?? ''))
    if (hint !== null) {
      this.keepAliveMs = Math.min(
        this.target.keepAliveTimeoutMs,
        Number(hint[1]) * 1000 - KEEP_ALIVE_MARGIN_MS,
      )
    }
    if (exchange.bodyTimeoutMs > 0) {
      this.lastReadMs = performance.now()
      this.armBodyTimer(exchange.bodyTimeoutMs)
    }
    exchange.responseStart(statusCode, headers)
  }

  onData(bytes: Buffer, start: number, end: number): void {
    this.exchange!.responseData(bytes, start, end)
  }

  onEnd(): void {
    this.clearBodyTimer()
    this.exchange!.end()
  }

  /** The exchange was aborted: its socket cannot be reused. */
  release(): void {
    this.destroy(undefined)
  }

  pause(): void {
    this.socket.pause()
  }

  resume(): void {
    this.socket.resume()
  }

  /** Closes the socket; the exchange on it, if any, fails with `error`. */
  destroy(error: Error | undefined): void {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.connectTimer)
    clearTimeout(this.idleTimer)
    this.clearHeadersTimer()
    this.clearBodyTimer()
    this.reader?.stop()
    this.socket.destroy()
    const exchange = this.exchange
    this.exchange = undefined
    if (exchange !== undefined && error !== undefined) exchange.fail(error)
    this.owner.gone(this)
  }

  private received(buffer: Buffer, bytes: number): void {
    const exchange = this.exchange
    if (exchange === undefined) {
      // Bytes nobody asked for on an idle socket: it cannot carry a request any more.
      this.destroy(undefined)
      return
    }
    if (exchange.bodyTimeoutMs > 0) this.lastReadMs = performance.now()
    const reader = this.reader!
    try {
      reader.push(buffer, 0, bytes)
    } catch (error) {
      this.destroy(error as Error)
      return
    }
    if (reader.done) this.finished(reader)
  }

  /** The response was read: offer the socket back, or close it. */
  private finished(reader: ResponseReader): void {
    this.exchange = undefined
    this.reader = undefined
    if (this.closed) return
    if (!reader.keepAlive || this.keepAliveMs <= 0 || this.socket.writableLength > 0) {
      this.destroy(undefined)
      return
    }
    this.socket.unref()
    this.idleTimer = setTimeout(() => this.destroy(undefined), this.keepAliveMs)
    this.idleTimer.unref()
    this.owner.idle(this)
  }

  /** The server ended its side: a read-until-close body ends here; anything else broke off. */
  private ended(): void {
    const reader = this.reader
    if (this.exchange === undefined || reader === undefined) {
      this.destroy(undefined)
      return
    }
    try {
      reader.end()
    } catch (error) {
      this.destroy(error as Error)
      return
    }
    this.exchange = undefined
    this.destroy(undefined)
  }

  private armBodyTimer(delayMs: number): void {
    this.bodyTimer = setTimeout(() => {
      const exchange = this.exchange
      if (exchange === undefined) return
      // Reads only stamp the time; the timer re-arms for what is left of the wait.
      const leftMs = this.lastReadMs + exchange.bodyTimeoutMs - performance.now()
      if (leftMs > 0) this.armBodyTimer(leftMs)
      else this.destroy(new errors.BodyTimeoutError())
    }, delayMs)
  }

  private clearHeadersTimer(): void {
    if (this.headersTimer === undefined) return
    clearTimeout(this.headersTimer)
    this.headersTimer = undefined
  }

  private clearBodyTimer(): void {
    if (this.bodyTimer === undefined) return
    clearTimeout(this.bodyTimer)
    this.bodyTimer = undefined
  }
}
