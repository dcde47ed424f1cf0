import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import type { AddressInfo } from 'node:net'

/** A request the script server received. */
export interface CapturedRequest {
  method: string
  url: string
  /** Header names and values in the order they were sent. */
  rawHeaders: Array<[string, string]>
  body: string
  /** `performance.now()` when the whole request body had arrived. */
  receivedMs: number
  /** The TLS server name (SNI) the client sent, with `tls`. */
  servername?: string | false
}

/**
 * A self-signed certificate for `localhost` and 127.0.0.1 (fixtures/tls/, valid until 2126): a
 * client must accept any certificate (`insecure`) to talk to a server that uses it.
 */
export const LOCALHOST_TLS = {
  key: readFileSync(new URL('../../fixtures/tls/localhost.key', import.meta.url)),
  cert: readFileSync(new URL('../../fixtures/tls/localhost.crt', import.meta.url)),
}

/** One step of a scripted SSE response. */
export type ScriptStep =
  | { kind: 'write'; data: string | Uint8Array }
  | { kind: 'sleep'; ms: number }
  /** Destroys the socket: the client sees the connection die mid-stream. */
  | { kind: 'destroy' }
  /** Keeps the response open until the server closes. */
  | { kind: 'hang' }

export type Responder = (request: CapturedRequest, response: ServerResponse) => Promise<void> | void

export interface ScriptServer {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string
  requests: CapturedRequest[]
  /** Peak number of requests being answered at once. */
  peakConcurrent: () => number
  close: () => Promise<void>
}

/**
 * Starts an independent `node:http` server on 127.0.0.1:0 that answers with `respond`; with
 * `tls`, a `node:https` one at `https://localhost:<port>`.
 */
export async function startScriptServer(
  respond: Responder,
  options: { tls?: { key: Buffer; cert: Buffer } } = {},
): Promise<ScriptServer> {
  const requests: CapturedRequest[] = []
  let active = 0
  let peak = 0
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const raw = req.rawHeaders
      const rawHeaders: Array<[string, string]> = []
      for (let i = 0; i < raw.length; i += 2) rawHeaders.push([raw[i]!, raw[i + 1]!])
      const captured: CapturedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        rawHeaders,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedMs: performance.now(),
        ...(options.tls ? { servername: (req.socket as { servername?: string | false }).servername } : {}),
      }
      requests.push(captured)
      active++
      peak = Math.max(peak, active)
      res.on('close', () => active--)
      Promise.resolve(respond(captured, res)).catch(() => res.destroy())
    })
  }
  const server = options.tls ? createTlsServer(options.tls, handle) : createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: options.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    requests,
    peakConcurrent: () => peak,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Answers 200 `text/event-stream` and plays `steps`; ends the response unless told otherwise. */
export async function playSse(response: ServerResponse, steps: ScriptStep[]): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  response.flushHeaders()
  for (const step of steps) {
    if (step.kind === 'write') response.write(step.data)
    else if (step.kind === 'sleep') await sleep(step.ms)
    else if (step.kind === 'destroy') {
      response.socket?.destroy()
      return
    } else return
  }
  response.end()
}

/** `data: <json>\n\n` */
export function sse(payload: unknown): string {
  return `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** A port that was just free and is now closed: connecting to it is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

/** The transports a streaming test runs over (`--http-transport`): servebench's lean one and undici. */
export const HTTP_TRANSPORT_CASES = ['lean', 'undici'] as const
