import { createServer, request as httpRequest } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'

/** A forward proxy started by a test: CONNECT tunnels and absolute-form HTTP requests. */
export interface ForwardProxy {
  /** `http://127.0.0.1:<port>`, for `HTTP_PROXY`. */
  url: string
  /** Every CONNECT target (`host:port`) and every forwarded absolute URL, in arrival order. */
  calls: string[]
  close(): Promise<void>
}

/**
 * Starts a forward proxy on 127.0.0.1. `hosts` maps a host name the proxy resolves itself to the
 * address it connects to, so a test can use a name that only the proxy can reach
 * (`sim.invalid` → `127.0.0.1`): a request that succeeds has gone through the proxy.
 */
export async function startForwardProxy(hosts: Record<string, string> = {}): Promise<ForwardProxy> {
  const calls: string[] = []
  const sockets = new Set<Socket>()
  const resolveHost = (host: string): string => hosts[host] ?? host
  const server = createServer((req, res) => {
    // Absolute form: GET http://host:port/path HTTP/1.1
    calls.push(req.url ?? '')
    const target = new URL(req.url ?? '')
    const upstream = httpRequest(
      {
        hostname: resolveHost(target.hostname),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  server.on('connect', (req, client: Socket, head: Buffer) => {
    calls.push(req.url ?? '')
    const [host = '', port = '80'] = (req.url ?? '').split(':')
    const upstream = connect(Number(port), resolveHost(host), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
