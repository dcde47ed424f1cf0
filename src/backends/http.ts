import type { Dispatcher } from 'undici'
import { createDispatcher } from './proxy.ts'

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
}

/** How long an idle keep-alive socket is kept (Python: `keepalive_timeout=60`). */
export const KEEP_ALIVE_TIMEOUT_MS = 60_000
/** TCP connect timeout (Rust: 30 s). */
export const CONNECT_TIMEOUT_MS = 30_000

/**
 * The HTTP connection pool one run shares: an undici `Agent` with one pipelined request per
 * socket (HTTP/1.1, as both upstream clients) and as many sockets as the run's concurrency.
 * Timeouts between chunks are set per request, so the agent disables undici's 300 s defaults:
 * a request waiting in a long server queue must not fail because of the pool. With a proxy set in
 * the environment, every socket is a CONNECT tunnel through it (backends/proxy.ts).
 */
export class HttpClient {
  readonly dispatcher: Dispatcher
  private closed = false

  constructor(options: HttpClientOptions) {
    const { connections, insecure = false, env = process.env } = options
    this.dispatcher = createDispatcher(
      {
        connections: Number.isFinite(connections) && connections > 0 ? Math.ceil(connections) : null,
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
  }

  /** Closes every socket after the requests in flight end. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.dispatcher.close()
  }
}
