import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backendRequest } from '../../test/backends/backend-request.ts'
import { HttpClient } from './http.ts'
import {
  buildResponsesBody,
  NO_TERMINAL_EVENT_ERROR,
  NO_TOKEN_DELTA_ERROR,
  responsesBackend,
} from './responses.ts'
import type { BackendRequest } from './types.ts'

function request(overrides: Partial<BackendRequest> = {}): BackendRequest {
  return backendRequest('http://127.0.0.1:1/v1/responses', { outputLen: 128, ...overrides })
}

const ev = (type: string, extra: Record<string, unknown> = {}): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...extra })}\n\n`

// After the Rust port's Responses tests (backends/openai_responses.rs). Each scenario is a list of
// [delay before the chunk in ms, chunk text].
const SCENARIOS: Record<string, Array<[number, string]>> = {
  timed: [
    [10, ev('response.reasoning_text.delta', { delta: 'hmm' })],
    [10, ev('response.output_text.delta', { delta: 'Hi' })],
    [10, ev('response.output_text.delta', { delta: ' there' })],
    [10, ev('response.completed', { response: { usage: { output_tokens: 3 } } })],
  ],
  split: [
    [0, 'event: response.output_text.delta\n'],
    [5, `data: ${JSON.stringify({ type: 'response.output_text.delta', delta: 'Hi' })}\n\n`],
    [0, ev('response.incomplete', { response: { usage: { output_tokens: 1 } } })],
  ],
  multiline: [
    [
      0,
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",\ndata: "delta":"Hi"}\n\n',
    ],
    [0, ev('response.completed', { response: { usage: { output_tokens: 1 } } })],
  ],
  noTerminal: [[0, ev('response.output_text.delta', { delta: 'Hi' })]],
  failed: [
    [0, ev('response.output_text.delta', { delta: 'Hi' })],
    [0, ev('response.failed', { response: { error: { code: 'server_error', message: 'boom' } } })],
  ],
  noDelta: [[0, ev('response.completed', { response: { usage: { output_tokens: 0 } } })]],
}

describe('openai-responses payload', () => {
  it('sends input, max_output_tokens, stream, store false, ignore_eos and the extra body', () => {
    const body = buildResponsesBody(request({ ignoreEos: true, extraBody: { temperature: 0.5 } }))
    expect(body).toEqual({
      model: 'm',
      input: 'hello',
      max_output_tokens: 128,
      stream: true,
      store: false,
      ignore_eos: true,
      temperature: 0.5,
    })
  })
})

describe('openai-responses stream handling', () => {
  let server: Server
  let base = ''
  const client = new HttpClient({ connections: 4 })

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.flushHeaders()
        void play(res, SCENARIOS[(req.url ?? '').slice(1)] ?? [])
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await client.close()
    await new Promise((resolve) => server.close(resolve))
  })

  const send = (scenario: string) => responsesBackend.send(request({ url: `${base}/${scenario}` }), client)

  it('times reasoning and text deltas, keeps only the text, reads usage.output_tokens', async () => {
    const out = await send('timed')
    expect(out.error).toBe('')
    expect(out.success).toBe(true)
    expect(out.generatedText).toBe('Hi there')
    expect(out.outputTokens).toBe(3)
    expect(out.itlS).toHaveLength(2)
    expect(out.ttftS).toBeGreaterThanOrEqual(0.01)
    // A late first stamp shortens the next gap, so only the end is bounded below: the last text
    // delta left the server 30 ms after the request arrived.
    for (const gap of out.itlS) expect(gap).toBeGreaterThan(0)
    expect(out.latencyS).toBeGreaterThanOrEqual(0.028)
    // Latency ends at the last delta, not at response.completed.
    expect(out.latencyS - out.ttftS).toBeCloseTo(out.itlS[0]! + out.itlS[1]!, 6)
  })

  it('joins an event whose event: and data: lines arrive in different chunks; incomplete is terminal', async () => {
    const out = await send('split')
    expect(out.success).toBe(true)
    expect(out.generatedText).toBe('Hi')
  })

  it('joins an event with two data: lines', async () => {
    const out = await send('multiline')
    expect(out.success).toBe(true)
    expect(out.generatedText).toBe('Hi')
  })

  it('fails a stream without a terminal event', async () => {
    const out = await send('noTerminal')
    expect(out.success).toBe(false)
    expect(out.error).toBe(NO_TERMINAL_EVENT_ERROR)
  })

  it('fails on response.failed and names the server error', async () => {
    const out = await send('failed')
    expect(out.success).toBe(false)
    expect(out.error).toBe('Error event in stream: {"code":"server_error","message":"boom"}')
  })

  it('fails a stream without any delta', async () => {
    const out = await send('noDelta')
    expect(out.success).toBe(false)
    expect(out.error).toBe(NO_TOKEN_DELTA_ERROR)
  })
})

async function play(res: ServerResponse, chunks: Array<[number, string]>): Promise<void> {
  for (const [delayMs, text] of chunks) {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
    res.write(text)
  }
  res.end()
}
