import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type RequestListener,
  type Server,
} from 'node:http'
import { type AddressInfo, createServer as createNetServer } from 'node:net'

/** A `node:http` server started by a test. */
export interface TestServer {
  server: Server
  port: number
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string
  /** Stops listening and drops open connections. */
  close(): Promise<void>
}

/** Starts a `node:http` server with `handler` on 127.0.0.1 and a free port. */
export async function startHttpServer(handler: RequestListener): Promise<TestServer> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** One request the recording proxy saw. */
export interface ProxyCall {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
}

/**
 * A recording proxy in front of `target` (the simulator): keeps every request, in arrival order,
 * and forwards it; `fail` answers 500 instead of forwarding, `hold` never answers (until closed).
 */
export async function startRecordingProxy(
  target: string,
  fail: (call: ProxyCall) => boolean = () => false,
  hold: (call: ProxyCall) => boolean = () => false,
): Promise<TestServer & { calls: ProxyCall[] }> {
  const calls: ProxyCall[] = []
  const { hostname, port } = new URL(target)
  const proxy = await startHttpServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const call = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      calls.push(call)
      if (hold(call)) return
      if (fail(call)) {
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end('{"error":"injected"}')
        return
      }
      const upstream = httpRequest(
        { hostname, port, path: call.path, method: call.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers)
          up.pipe(res)
        },
      )
      upstream.end(call.body)
    })
  })
  return { ...proxy, calls }
}

/** A port free on 127.0.0.1 a moment ago, for a command that must be told its port (a served command). */
export async function freePort(): Promise<number> {
  const server = createNetServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
