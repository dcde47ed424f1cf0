/**
 * The lean transport's `Dispatcher`: the part of undici's API that the streaming path uses,
 * `dispatch(options, handler)` with v2 handlers and `close()`, over a keep-alive pool per origin
 * bounded by `connections`, with requests waiting in FIFO order for a free socket. Plain http:
 * and https: only; proxies and everything else stay on undici (backends/http.ts decides).
 */
import type { Dispatcher } from 'undici'
import { errors } from 'undici'
import { type ConnectionOwner, type ConnectionTarget, LeanConnection } from './connection.ts'
import { Exchange, type ExchangeHolder } from './exchange.ts'
import { bodyBytesOf, requestHead } from './request-head.ts'

/** Options of {@link LeanDispatcher}. */
export interface LeanDispatcherOptions {
  /** Sockets per origin; null is no limit. */
  connections: number | null
  /** Accept any TLS certificate. @default false */
  insecure?: boolean
  connectTimeoutMs: number
  keepAliveTimeoutMs: number
}

/** The subset of undici's `Dispatcher` that streamed requests are sent through. */
export interface StreamDispatcher {
  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean
  close(): Promise<void>
}

export class LeanDispatcher implements StreamDispatcher {
  private readonly pools = new Map<string, OriginPool>()
  private readonly options: LeanDispatcherOptions
  private closed = false

  constructor(options: LeanDispatcherOptions) {
    this.options = options
  }

  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = String(options.origin)
    let pool = this.pools.get(origin)
    if (pool === undefined) {
      // Checked once per origin: a bad one throws here, as undici's dispatch() does.
      pool = new OriginPool(targetOf(origin, this.options), this.options.connections)
      this.pools.set(origin, pool)
    }
    const body = options.body as string | Uint8Array | null | undefined
    if (body !== null && body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      throw new errors.InvalidArgumentError('the lean transport sends string and Uint8Array bodies only')
    }
    const head = requestHead(options.method, options.path, pool.host, options.headers, bodyBytesOf(body))
    const exchange = new Exchange(head, options, handler)
    exchange.start()
    if (exchange.done) return true
    if (this.closed) exchange.fail(new errors.ClientClosedError())
    else pool.enqueue(exchange)
    return true
  }

  /** Lets the requests in flight and waiting end, then closes every socket. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.pools.values()].map((pool) => pool.close()))
  }
}

/** The sockets of one origin and the requests waiting for one. */
class OriginPool implements ConnectionOwner, ExchangeHolder {
  /** The `host` header value. */
  readonly host: string
  private readonly target: ConnectionTarget
  private readonly limit: number
  private readonly idleConnections: LeanConnection[] = []
  private readonly waiting: Exchange[] = []
  private size = 0
  private onDrained: (() => void) | undefined

  constructor(target: ConnectionTarget & { host: string }, limit: number | null) {
    const { host, ...rest } = target
    this.host = host
    this.target = rest
    this.limit = limit ?? Number.POSITIVE_INFINITY
  }

  enqueue(exchange: Exchange): void {
    const connection = this.idleConnections.pop()
    if (connection !== undefined) {
      connection.send(exchange)
    } else if (this.size < this.limit) {
      this.size++
      new LeanConnection(this.target, this).send(exchange)
    } else {
      exchange.holder = this
      this.waiting.push(exchange)
    }
  }

  idle(connection: LeanConnection): void {
    const next = this.waiting.shift()
    if (next !== undefined) connection.send(next)
    else if (this.onDrained !== undefined) connection.destroy(undefined)
    else this.idleConnections.push(connection)
  }

  gone(connection: LeanConnection): void {
    this.size--
    const at = this.idleConnections.indexOf(connection)
    if (at >= 0) this.idleConnections.splice(at, 1)
    const next = this.waiting.shift()
    if (next !== undefined) {
      this.size++
      new LeanConnection(this.target, this).send(next)
    } else if (this.size === 0) {
      this.onDrained?.()
    }
  }

  /** A waiting request was aborted: it leaves the queue. */
  release(exchange: Exchange): void {
    const at = this.waiting.indexOf(exchange)
    if (at >= 0) this.waiting.splice(at, 1)
  }

  pause(): void {}

  resume(): void {}

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.onDrained = resolve
      for (const connection of [...this.idleConnections]) connection.destroy(undefined)
      if (this.size === 0) resolve()
    })
  }
}

function targetOf(origin: string, options: LeanDispatcherOptions): ConnectionTarget & { host: string } {
  if (!origin.startsWith('http://') && !origin.startsWith('https://')) {
    throw new errors.InvalidArgumentError(
      'Invalid URL protocol: the URL must start with `http:` or `https:`.',
    )
  }
  const url = new URL(origin)
  const tls = url.protocol === 'https:'
  return {
    tls,
    // URL keeps the brackets of an IPv6 address; sockets want it bare.
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (tls ? 443 : 80) : Number(url.port),
    host: url.host,
    insecure: options.insecure ?? false,
    connectTimeoutMs: options.connectTimeoutMs,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs,
  }
}
