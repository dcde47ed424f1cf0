import type { Dispatcher } from 'undici'
import {
  type HttpTransport,
  LEAN_WITH_PROXY_MESSAGE,
  type ResolvedHttpTransport,
} from '../config/bench-config.ts'
import { ConfigError } from '../errors.ts'
import { LeanDispatcher, type StreamDispatcher } from './lean/dispatcher.ts'
import { createDispatcher, proxyEnvFrom } from './proxy.ts'

/** Options of {@link HttpClient}. */
export interface HttpClientOptions {
  /** Sockets per origin: the run's concurrency. `Infinity` or 0 means no limit. */
  connections: number
  /** Accept invalid TLS certificates (`--insecure`). @default false */
  insecure?: boolean
  /**
   * Where `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (or their lowercase forms) are read, as
   * aiohttp's `trust_env`. @default process.env
   */
  env?: Readonly<Record<string, string | undefined>>
  /** What carries streamed requests (`--http-transport`). @default 'auto' */
  transport?: HttpTransport
}

/** How long an idle keep-alive socket is kept (Python: `keepalive_timeout=60`). */
export const KEEP_ALIVE_TIMEOUT_MS = 60_000
/** TCP connect timeout (Rust: 30 s). */
export const CONNECT_TIMEOUT_MS = 30_000

/**
 * The HTTP connection pools one run shares: an undici `Agent` with one pipelined request per
 * socket (HTTP/1.1, as both upstream clients) and as many sockets as the run's concurrency, and
 * for streamed requests the lean transport (backends/lean/) with the same limits, unless a proxy
 * is set or `transport` is `undici`. Timeouts between chunks are set per request, so the pools
 * have none of their own (undici's 300 s defaults are off): a request waiting in a long server
 * queue must not fail because of the pool. With a proxy set in the environment, every socket is
 * a CONNECT tunnel through it (backends/proxy.ts).
 */
export class HttpClient {
  /** undici: non-streamed requests, and streamed ones when the lean transport is not used. */
  readonly dispatcher: Dispatcher
  /** What streamed requests go through: the lean transport, or {@link dispatcher}. */
  readonly streamDispatcher: StreamDispatcher
  /** The transport {@link streamDispatcher} is. */
  readonly transport: ResolvedHttpTransport
  private closed = false

  constructor(options: HttpClientOptions) {
    const { connections, insecure = false, env = process.env, transport = 'auto' } = options
    const limit = Number.isFinite(connections) && connections > 0 ? Math.ceil(connections) : null
    this.dispatcher = createDispatcher(
      {
        connections: limit,
        pipelining: 1,
        keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
        headersTimeout: 0,
        bodyTimeout: 0,
        connect: {
          timeout: CONNECT_TIMEOUT_MS,
          noDelay: true,
          ...(insecure ? { rejectUnauthorized: false } : {}),
        },
      },
      env,
      insecure,
    )
    const proxied = proxyEnvFrom(env) !== undefined
    if (transport === 'lean' && proxied) {
      throw new ConfigError([
        {
          path: '--http-transport',
          message: LEAN_WITH_PROXY_MESSAGE,
        },
      ])
    }
    if (transport === 'undici' || proxied) {
      this.streamDispatcher = this.dispatcher
      this.transport = 'undici'
    } else {
      this.streamDispatcher = new LeanDispatcher({
        connections: limit,
        insecure,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
      })
      this.transport = 'lean'
    }
  }

  /** Closes every socket after the requests in flight end. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await Promise.all([
      this.dispatcher.close(),
      this.streamDispatcher === this.dispatcher ? undefined : this.streamDispatcher.close(),
    ])
  }
}
