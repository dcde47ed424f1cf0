import { createServer, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backendRequest } from '../../../test/backends/backend-request.ts'
import { HTTP_TRANSPORT_CASES } from '../../../test/backends/script-server.ts'
import type { HttpTransport } from '../../config/bench-config.ts'
import { HttpClient } from '../http.ts'
import { getBackend } from '../index.ts'
import type { BackendRequest } from '../types.ts'

// One raw TCP server for the file: each test sets what it writes back, byte for byte, so the
// client's HTTP/1.1 reading is what is tested, not node:http's writing.
let server: Server
let url: string
let answer: (socket: Socket, request: number) => void = () => {}
/** Sockets the server accepted, and requests it read (one per `\r\n\r\n` + body). */
let sockets = 0
let requests = 0

beforeAll(async () => {
  server = createServer((socket) => {
    sockets++
    socket.on('error', () => {})
    socket.on('data', () => {
      // Each request here is written in one piece (head and a small body), so one read is one request.
      answer(socket, requests++)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  url = `http://127.0.0.1:${port}/v1/completions`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

function request(overrides: Partial<BackendRequest> = {}): BackendRequest {
  return backendRequest(url, { requestId: 'r', prompt: 'p', promptLen: 1, ...overrides })
}

async function send(transport: HttpTransport, count = 1, overrides: Partial<BackendRequest> = {}) {
  const client = new HttpClient({ connections: 1, transport })
  try {
    const outputs = []
    for (let i = 0; i < count; i++) outputs.push(await getBackend('vllm').send(request(overrides), client))
    return outputs
  } finally {
    await client.close()
  }
}

const EVENT = 'data: {"choices":[{"text":"x"}]}\n\n'
const CHUNKED = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n'

describe('the lean transport reads what undici reads, with the same error texts', () => {
  it.for([
    [
      'headers over 16 KiB',
      `HTTP/1.1 200 OK\r\nx-a: ${'a'.repeat(70_000)}`,
      'Request failed: Headers Overflow Error (UND_ERR_HEADERS_OVERFLOW)',
    ],
    [
      'a bad chunk size',
      `${CHUNKED}zz\r\n`,
      'Stream error: Response does not match the HTTP/1.1 protocol (Invalid character in chunk size)',
    ],
    [
      'a chunk without its line end',
      `${CHUNKED}2\r\nabc\r\n`,
      'Stream error: Response does not match the HTTP/1.1 protocol (Expected LF after chunk data)',
    ],
    ['a close mid-chunk', `${CHUNKED}40\r\n${EVENT}`, 'Stream error: other side closed (UND_ERR_SOCKET)'],
    [
      'no HTTP at all',
      'SSH-2.0-OpenSSH_9\r\n\r\n',
      'Request failed: Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/)',
    ],
    [
      'both framings',
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-length: 5\r\n\r\n0\r\n\r\n`,
      "Request failed: Response does not match the HTTP/1.1 protocol (Content-Length can't be present with Transfer-Encoding)",
    ],
    [
      'an HTTP/1.0 body read to the close',
      `HTTP/1.0 200 OK\r\ncontent-type: text/event-stream\r\n\r\n${EVENT}`,
      '',
    ],
    [
      'a 103 Early Hints first',
      `HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n${CHUNKED}${EVENT.length.toString(16)}\r\n${EVENT}\r\n0\r\n\r\n`,
      '',
    ],
  ] as const)('%s', async ([, wire, error]) => {
    answer = (socket) => {
      socket.write(wire)
      socket.end()
    }
    const [lean] = await send('lean')
    const [undici] = await send('undici')
    expect(lean!.error).toBe(error)
    expect(undici!.error).toBe(error)
    expect(lean!.success).toBe(error === '')
  })

  it.for(HTTP_TRANSPORT_CASES)(
    'keeps one socket for sequential requests, and opens one per request after Connection: close (%s)',
    async (transport) => {
      answer = (socket) => socket.write(`${CHUNKED}${EVENT.length.toString(16)}\r\n${EVENT}\r\n0\r\n\r\n`)
      sockets = 0
      expect((await send(transport, 3)).every((output) => output.success)).toBe(true)
      expect(sockets).toBe(1)
      answer = (socket) =>
        socket.end(
          `HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/event-stream\r\ncontent-length: ${EVENT.length}\r\n\r\n${EVENT}`,
        )
      sockets = 0
      expect((await send(transport, 3)).every((output) => output.success)).toBe(true)
      expect(sockets).toBe(3)
    },
  )
})

describe('aborting', () => {
  // The first answer is a stream that never ends; the next ones answer at once.
  const streamThenAnswers = (socket: Socket, n: number): void => {
    const event = `${CHUNKED}${EVENT.length.toString(16)}\r\n${EVENT}\r\n`
    socket.write(n === 0 ? event : `${event}0\r\n\r\n`)
  }

  it.for(HTTP_TRANSPORT_CASES)('drops a socket aborted mid-stream (%s)', async (transport) => {
    answer = streamThenAnswers
    requests = 0
    sockets = 0
    const client = new HttpClient({ connections: 1, transport })
    try {
      const controller = new AbortController()
      const backend = getBackend('vllm')
      const streaming = backend.send(request({ signal: controller.signal }), client)
      await new Promise((resolve) => setTimeout(resolve, 50))
      controller.abort()
      const aborted = await streaming
      expect([aborted.error, aborted.ttftS > 0]).toEqual(['Stream error: request aborted', true])
      expect((await backend.send(request(), client)).success).toBe(true)
      expect([requests, sockets]).toEqual([2, 2])
    } finally {
      await client.close()
    }
  })

  // undici settles an aborted waiting request only once a socket frees up for it.
  it('takes a waiting request out of the lean queue at once', async () => {
    answer = streamThenAnswers
    requests = 0
    const client = new HttpClient({ connections: 1, transport: 'lean' })
    try {
      const first = new AbortController()
      const waiting = new AbortController()
      const backend = getBackend('vllm')
      const streaming = backend.send(request({ signal: first.signal }), client)
      const queued = backend.send(request({ signal: waiting.signal }), client)
      waiting.abort()
      expect((await queued).error).toBe('Request failed: request aborted')
      await new Promise((resolve) => setTimeout(resolve, 50))
      first.abort()
      await streaming
      expect(requests).toBe(1)
    } finally {
      await client.close()
    }
  })
})

describe('the lean transport bounds what a server can make it hold', () => {
  it('fails an endless chunk extension (undici reads it until the read timeout)', async () => {
    answer = (socket) => socket.write(`${CHUNKED}1;${'e'.repeat(100_000)}`)
    const [lean] = await send('lean', 1, { readTimeoutS: 5 })
    expect(lean!.error).toBe(
      'Stream error: Response does not match the HTTP/1.1 protocol (Chunk size line too long)',
    )
  })
})
