/**
 * The client's per-event hot path: SSE parsing, the whole per-chunk handling (stamp, parse,
 * JSON, choice text, ITL) of a chat stream, and the lean transport's read path below the socket.
 * Each task handles one 64-token stream, so ops/s × 64 is events per second on one core. Run:
 * `npm run perf:micro`.
 */
import { bench, describe } from 'vitest'
import { Exchange } from '../../src/backends/lean/exchange.ts'
import { ResponseReader } from '../../src/backends/lean/response-reader.ts'
import { createSseParser } from '../../src/backends/sse.ts'
import { StreamDispatch } from '../../src/backends/stream-dispatch.ts'
import { createStreamHandler, pendingOutput } from '../../src/backends/stream-request.ts'

const TOKENS = 64
const event = (i: number): string =>
  `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"servebench/sim-model","choices":[{"index":0,"delta":{"content":" word${i}"},"logprobs":null,"finish_reason":null}]}\n\n`
const usage =
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"servebench/sim-model","choices":[],"usage":{"prompt_tokens":32,"total_tokens":96,"completion_tokens":64}}\n\ndata: [DONE]\n\n'
// One event per chunk, as a server that writes each SSE event on its own (vLLM). Buffers, as both
// transports hand them over.
const perEvent = [...Array.from({ length: TOKENS }, (_, i) => Buffer.from(event(i))), Buffer.from(usage)]
// The same bytes cut every 37 bytes: events span chunks.
const whole = Buffer.from(Array.from({ length: TOKENS }, (_, i) => event(i)).join('') + usage)
const split = Array.from({ length: Math.ceil(whole.length / 37) }, (_, k) =>
  whole.subarray(k * 37, k * 37 + 37),
)

const chatText = (choice: unknown): string | undefined =>
  (choice as { delta?: { content?: string } } | undefined)?.delta?.content

// The payloads go to a callback, as the client's stream handler takes them (`feed`).
const onData = (_data: string): void => {}

describe('SSE parsing, one 64-event stream', () => {
  bench('one event per chunk', () => {
    const parser = createSseParser()
    for (const chunk of perEvent) parser.feed(chunk, onData)
    parser.finish(onData)
  })
  bench('events split across 37-byte chunks', () => {
    const parser = createSseParser()
    for (const chunk of split) parser.feed(chunk, onData)
    parser.finish(onData)
  })
})

const request = {
  url: 'http://127.0.0.1:1/v1/chat/completions',
  requestId: 'r',
  model: 'm',
  prompt: 'p',
  promptLen: 32,
  outputLen: TOKENS,
  ignoreEos: true,
  extraBody: {},
  headers: {},
}

describe('chunk handling (stamp, SSE, JSON, text, ITL), one 64-event chat stream', () => {
  bench('one event per chunk', () => {
    const handler = createStreamHandler(performance.now(), pendingOutput(request), chatText)
    for (const chunk of perEvent) handler.chunk(chunk)
    handler.finish()
  })
})

// The reads of one streamed response as the simulator sends them: the head, then each event as
// one HTTP/1.1 chunk of its own.
const reads = [
  Buffer.from(
    'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\n' +
      'Connection: keep-alive\r\nKeep-Alive: timeout=65\r\nTransfer-Encoding: chunked\r\n\r\n',
  ),
  ...perEvent.map((chunk) =>
    Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
  ),
  Buffer.from('0\r\n\r\n'),
]
// Every lean socket reads into one shared buffer (`onread`).
const readBuffer = Buffer.allocUnsafe(64 * 1024)

describe('lean read path (HTTP/1.1 framing, exchange, dispatch handler, chunk handling), one 64-event chat stream', () => {
  bench('one event per read', () => {
    const output = pendingOutput(request)
    const dispatch = new StreamDispatch(request, output, undefined, (out) =>
      createStreamHandler(performance.now(), out, chatText),
    )
    const exchange = new Exchange('', { origin: 'http://127.0.0.1:1', path: '/', method: 'POST' }, dispatch)
    // What a LeanConnection passes on from its reader.
    const reader = new ResponseReader({
      onHead: (status, headers) => exchange.responseStart(status, headers),
      onData: (bytes, start, end) => exchange.responseData(bytes, start, end),
      onEnd: () => exchange.end(),
    })
    exchange.start()
    for (const read of reads) {
      read.copy(readBuffer)
      reader.push(readBuffer, 0, read.length)
    }
  })
})
