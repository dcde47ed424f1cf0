/**
 * The floor under servebench's client cost: the same streamed requests sent with plain undici and
 * no parsing at all, against the same simulator. `request()` drains a Readable body; `dispatch()`
 * hands raw chunks to a handler (what src/backends/stream-request.ts does), so the gap between
 * each floor and servebench is what servebench itself adds per request.
 */
import { connect, type Socket } from 'node:net'
import { Agent, type Dispatcher, request } from 'undici'

/**
 * Which client the floor uses: undici `request()` or `dispatch()`, or a bare node:net socket that
 * only finds the HTTP/1.1 framing, reading into one reused buffer (`lean`, `onread`) or through
 * `'data'` events, which allocate a Buffer per read (`lean-data`).
 */
export const FLOOR_KINDS = ['request', 'dispatch', 'lean', 'lean-data'] as const
export type FloorKind = (typeof FLOOR_KINDS)[number]

/** CPU milliseconds per request (user and kernel) of `requests` streams, `concurrency` at a time. */
export interface FloorCost {
  kind: FloorKind
  cpuMsPerRequest: number
  userCpuMsPerRequest: number
}

export async function measureFloor(
  kind: FloorKind,
  baseUrl: string,
  concurrency: number,
  requests: number,
  outputTokens: number,
): Promise<FloorCost> {
  const url = new URL('/v1/completions', baseUrl)
  const body = (i: number): string =>
    JSON.stringify({
      prompt: Array.from({ length: 32 }, (_, j) => 1000 + ((i * 32 + j) % 50_000)),
      max_tokens: outputTokens,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    })
  let next = 0
  let cpu: NodeJS.CpuUsage
  if (kind === 'lean' || kind === 'lean-data') {
    const worker = async (): Promise<void> => {
      const conn = new LeanConnection(url, kind === 'lean')
      while (next < requests) await conn.send(body(next++))
      conn.close()
    }
    const cpuStart = process.cpuUsage()
    await Promise.all(Array.from({ length: concurrency }, worker))
    cpu = process.cpuUsage(cpuStart)
  } else {
    const agent = new Agent({ connections: concurrency, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 })
    const send = kind === 'request' ? viaRequest : viaDispatch
    const worker = async (): Promise<void> => {
      while (next < requests) await send(agent, url, body(next++))
    }
    const cpuStart = process.cpuUsage()
    await Promise.all(Array.from({ length: concurrency }, worker))
    cpu = process.cpuUsage(cpuStart)
    await agent.close()
  }
  return {
    kind,
    cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / requests,
    userCpuMsPerRequest: cpu.user / 1000 / requests,
  }
}

async function viaRequest(agent: Agent, url: URL, body: string): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body,
  })
  await new Promise<void>((resolve, reject) => {
    res.body.on('data', () => {})
    res.body.once('end', resolve)
    res.body.once('error', reject)
  })
}

function viaDispatch(agent: Agent, url: URL, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart: () => {},
      onResponseData: () => {},
      onResponseEnd: () => resolve(),
      onResponseError: (_controller, error) => reject(error),
    }
    agent.dispatch(
      {
        origin: url.origin,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      },
      handler,
    )
  })
}

/** One read buffer shared by every lean floor socket: each read is handled before the next. */
const SHARED_READ_BUFFER = Buffer.allocUnsafe(64 * 1024)

/**
 * One keep-alive socket that sends a POST and finds where its chunked (or Content-Length) answer
 * ends, and nothing else: the least any HTTP/1.1 client must do per read.
 */
class LeanConnection {
  private socket: Socket | undefined
  private readonly url: URL
  private readonly onread: boolean
  private done: (() => void) | undefined
  private fail: ((error: Error) => void) | undefined
  /** The header bytes read so far, until the blank line. */
  private head = ''
  /** -1: reading headers; else bytes of the current chunk (or body) left, or chunk-size parsing. */
  private left = -1
  private chunked = false
  private sizeLine = ''
  private trailerCrLf = 0

  constructor(url: URL, onread: boolean) {
    this.url = url
    this.onread = onread
  }

  send(body: string): Promise<void> {
    if (this.socket === undefined) this.socket = this.open()
    this.head = ''
    this.left = -1
    this.sizeLine = ''
    this.trailerCrLf = 0
    this.socket.write(
      `POST ${this.url.pathname} HTTP/1.1\r\nhost: ${this.url.host}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    )
    return new Promise((resolve, reject) => {
      this.done = resolve
      this.fail = reject
    })
  }

  close(): void {
    this.socket?.destroy()
  }

  private open(): Socket {
    const port = Number(this.url.port)
    const host = this.url.hostname
    const socket = this.onread
      ? connect({
          host,
          port,
          noDelay: true,
          onread: {
            buffer: SHARED_READ_BUFFER,
            callback: (bytes: number, buffer: Uint8Array) => {
              this.read(buffer as Buffer, 0, bytes)
              return true
            },
          },
        })
      : connect({ host, port, noDelay: true })
    if (!this.onread) socket.on('data', (chunk: Buffer) => this.read(chunk, 0, chunk.length))
    socket.on('error', (error) => this.fail?.(error))
    socket.on('close', () => this.fail?.(new Error('the server closed the connection')))
    return socket
  }

  private read(buf: Buffer, start: number, end: number): void {
    let i = start
    if (this.left === -1) {
      const text = this.head + buf.toString('latin1', i, end)
      const at = text.indexOf('\r\n\r\n')
      if (at < 0) {
        this.head = text
        return
      }
      const headers = text.slice(0, at).toLowerCase()
      i += at + 4 - this.head.length
      this.chunked = headers.includes('transfer-encoding: chunked')
      this.left = this.chunked ? 0 : Number(/content-length: *(\d+)/.exec(headers)?.[1] ?? 0)
      if (!this.chunked && this.left === 0) {
        this.finish()
        return
      }
    }
    while (i < end) {
      if (this.left > 0) {
        const take = Math.min(this.left, end - i)
        i += take
        this.left -= take
        if (this.left === 0 && !this.chunked) {
          this.finish()
          return
        }
        continue
      }
      if (this.trailerCrLf > 0) {
        // The CRLF after a chunk's data.
        i++
        this.trailerCrLf--
        continue
      }
      const lf = buf.indexOf(0x0a, i)
      if (lf < 0 || lf >= end) {
        this.sizeLine += buf.toString('latin1', i, end)
        return
      }
      const line = this.sizeLine + buf.toString('latin1', i, lf)
      this.sizeLine = ''
      i = lf + 1
      const size = Number.parseInt(line, 16)
      if (size === 0) {
        // The simulator sends no trailers: the CRLF after this line ends the answer.
        this.finish()
        return
      }
      this.left = size
      this.trailerCrLf = 2
    }
  }

  private finish(): void {
    const done = this.done
    this.done = undefined
    this.fail = undefined
    done?.()
  }
}
