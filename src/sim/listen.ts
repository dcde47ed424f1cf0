/** Where a simulator listens, for one engine and for the primary of several alike. */
import type { Server } from 'node:net'
import type { ResolvedSimOptions } from './options.ts'

/** `http://HOST:PORT`, an IPv6 host in brackets. */
export function simUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}

/** Listens on the options' host and port with a deep backlog. */
export function listen(server: Server, options: ResolvedSimOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    // A deep backlog so a burst of thousands of connections is not dropped into SYN retries.
    server.listen({ host: options.host, port: options.port, backlog: 4096 }, () => {
      server.off('error', reject)
      resolve()
    })
  })
}
