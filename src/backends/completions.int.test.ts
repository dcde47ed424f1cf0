import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { backendRequest } from '../../test/backends/backend-request.ts'
import {
  closedPortUrl,
  HTTP_TRANSPORT_CASES,
  playSse,
  type Responder,
  type ScriptServer,
  type ScriptStep,
  sleep,
  sse,
  startScriptServer,
} from '../../test/backends/script-server.ts'
import { buildCompletionsBody, COMPLETIONS_PATH, createCompletionsBackend } from './completions.ts'
import { HttpClient } from './http.ts'
import { NO_VALID_CHUNK_ERROR } from './stream-request.ts'
import type { BackendRequest } from './types.ts'

const backend = createCompletionsBackend('vllm')
let client: HttpClient
let server: ScriptServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
})

async function serve(respond: Responder): Promise<string> {
  server = await startScriptServer(respond)
  return `${server.baseUrl}${COMPLETIONS_PATH}`
}

function script(steps: ScriptStep[]): Responder {
  return (_request, response) => playSse(response, steps)
}

function makeRequest(url: string, overrides: Partial<BackendRequest> = {}): BackendRequest {
  return backendRequest(url, { requestId: 'bench-0001-0', outputLen: 3, ...overrides })
}

const token = (text: string): string =>
  sse({ id: 'c', object: 'text_completion', choices: [{ index: 0, text }] })
const usage = (completionTokens: number, promptTokens = 7): string =>
  sse({ choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens } })
const write = (data: string): ScriptStep => ({ kind: 'write', data })
const wait = (ms: number): ScriptStep => ({ kind: 'sleep', ms })

// The streaming path over each transport: the lean one (backends/lean/) and undici.
describe.for(HTTP_TRANSPORT_CASES)('over %s', (transport) => {
  beforeAll(() => {
    client = new HttpClient({ connections: 8, transport })
  })
  afterAll(() => client.close())

  describe('completions request', () => {
    it('sends the Python body, key order included', async () => {
      const url = await serve(script([write(token('a')), write(sse('[DONE]'))]))
      await backend.send(makeRequest(url, { ignoreEos: true, extraBody: { temperature: 0.5 } }), client)
      const body = JSON.parse(server!.requests[0]!.body) as Record<string, unknown>
      expect(Object.keys(body)).toEqual([
        'model',
        'prompt',
        'repetition_penalty',
        'max_tokens',
        'logprobs',
        'stream',
        'stream_options',
        'ignore_eos',
        'temperature',
      ])
      expect(body).toEqual({
        model: 'm',
        prompt: 'hello',
        repetition_penalty: 1,
        max_tokens: 3,
        logprobs: null,
        stream: true,
        stream_options: { include_usage: true },
        ignore_eos: true,
        temperature: 0.5,
      })
      expect(server!.requests[0]!.method).toBe('POST')
      expect(server!.requests[0]!.url).toBe(COMPLETIONS_PATH)
    })

    it('sends token ids and logprobs, leaves out ignore_eos, and lets extraBody win', () => {
      const body = buildCompletionsBody(
        makeRequest('http://x', { prompt: [1, 2, 3], logprobs: 5, extraBody: { repetition_penalty: 1.2 } }),
      )
      expect(body).toEqual({
        model: 'm',
        prompt: [1, 2, 3],
        repetition_penalty: 1.2,
        max_tokens: 3,
        logprobs: 5,
        stream: true,
        stream_options: { include_usage: true },
      })
    })

    it('sends Authorization, Content-Type, the --header pairs, then x-request-id', async () => {
      const url = await serve(script([write(token('a'))]))
      await backend.send(
        makeRequest(url, { apiKey: 'sk-1', headers: { 'X-Team': 'perf', 'x-b': '2' } }),
        client,
      )
      const ours = new Set(['authorization', 'content-type', 'x-team', 'x-b', 'x-request-id'])
      const sent = server!.requests[0]!.rawHeaders.filter(([name]) => ours.has(name.toLowerCase()))
      expect(sent).toEqual([
        ['Authorization', 'Bearer sk-1'],
        ['Content-Type', 'application/json'],
        ['X-Team', 'perf'],
        ['x-b', '2'],
        ['x-request-id', 'bench-0001-0'],
      ])
    })

    it('lets a --header replace Content-Type, whatever its case', async () => {
      const url = await serve(script([write(token('a'))]))
      await backend.send(
        makeRequest(url, { headers: { 'content-type': 'application/json; charset=utf-8' } }),
        client,
      )
      const types = server!.requests[0]!.rawHeaders.filter(([name]) => name.toLowerCase() === 'content-type')
      expect(types).toEqual([['content-type', 'application/json; charset=utf-8']])
    })
  })

  describe('completions stream', () => {
    it('collects text, usage and timings; latency ends at the last token chunk', async () => {
      const url = await serve(
        script([
          wait(60),
          write(token('Hel')),
          wait(20),
          write(token('lo')),
          wait(20),
          write(token('!')),
          wait(120),
          write(usage(3, 11)),
          write(sse('[DONE]')),
        ]),
      )
      const before = performance.now()
      const output = await backend.send(makeRequest(url), client)
      const totalS = (performance.now() - before) / 1000
      expect(output).toMatchObject({
        success: true,
        error: '',
        generatedText: 'Hello!',
        outputTokens: 3,
        promptLen: 11,
      })
      expect(output.itlS).toHaveLength(2)
      const sumItl = output.itlS.reduce((a, b) => a + b, 0)
      expect(Math.abs(output.latencyS - output.ttftS - sumItl)).toBeLessThan(1e-9)
      expect(output.ttftS).toBeGreaterThanOrEqual(0.06 - 0.001)
      expect(totalS - output.latencyS).toBeGreaterThan(0.06)
    })

    it('measures TTFT from before the send to the first chunk the server wrote', async () => {
      let firstWriteMs = 0
      let receivedMs = 0
      const url = await serve(async (request, response) => {
        receivedMs = request.receivedMs
        response.writeHead(200, { 'content-type': 'text/event-stream' })
        response.flushHeaders()
        await sleep(80)
        firstWriteMs = performance.now()
        response.end(token('a') + usage(1))
      })
      const output = await backend.send(makeRequest(url), client)
      expect(output.success).toBe(true)
      expect(output.startTimeS * 1000).toBeLessThanOrEqual(receivedMs)
      expect(output.startTimeS * 1000 + output.ttftS * 1000).toBeGreaterThanOrEqual(firstWriteMs)
      expect(output.ttftS * 1000).toBeGreaterThanOrEqual(firstWriteMs - receivedMs)
    })

    it('stamps every event of one chunk with the same arrival time', async () => {
      const url = await serve(script([write(token('a') + token('b') + token('c') + usage(3))]))
      const output = await backend.send(makeRequest(url), client)
      expect(output.generatedText).toBe('abc')
      expect(output.itlS).toEqual([0, 0])
      expect(output.latencyS).toBe(output.ttftS)
    })

    it('accepts choices and usage in the same chunk', async () => {
      const url = await serve(
        script([
          write(token('a')),
          write(sse({ choices: [{ text: 'b' }], usage: { completion_tokens: 2 } })),
        ]),
      )
      const output = await backend.send(makeRequest(url), client)
      expect(output).toMatchObject({ success: true, generatedText: 'ab', outputTokens: 2, promptLen: 5 })
      expect(output.itlS).toHaveLength(1)
    })

    it('keeps outputTokens null when the server sends no usage, and ends without [DONE]', async () => {
      const url = await serve(script([write(token('a')), write('data: {"choices":[{"text":"b"}]}')]))
      const output = await backend.send(makeRequest(url), client)
      expect(output).toMatchObject({ success: true, generatedText: 'ab', outputTokens: null })
    })

    it('fails a usage-only stream with the Python text', async () => {
      const url = await serve(script([write(usage(0)), write(sse('[DONE]'))]))
      const output = await backend.send(makeRequest(url), client)
      expect(output.success).toBe(false)
      expect(output.error).toBe(NO_VALID_CHUNK_ERROR)
      expect(output.error).toBe(
        'Never received a valid chunk to calculate TTFT.This response will be marked as failed!',
      )
    })

    it('fails on an error event inside a 200 stream, with the server message', async () => {
      const url = await serve(
        script([
          write(token('a')),
          write(
            sse({
              error: {
                object: 'error',
                message: 'KV cache exhausted',
                type: 'InternalServerError',
                code: 500,
              },
            }),
          ),
          write(sse('[DONE]')),
        ]),
      )
      const output = await backend.send(makeRequest(url), client)
      expect(output.success).toBe(false)
      expect(output.error).toBe('Error event in stream: KV cache exhausted (InternalServerError, 500)')
      expect(output.generatedText).toBe('a')
    })
  })

  describe('completions failures', () => {
    it('reports HTTP 500 with the body', async () => {
      const url = await serve((_request, response) => {
        response.writeHead(500, { 'content-type': 'application/json' })
        response.end('{"error":"boom"}')
      })
      const output = await backend.send(makeRequest(url), client)
      expect(output).toMatchObject({
        success: false,
        error: 'HTTP 500 Internal Server Error: {"error":"boom"}',
      })
    })

    it('reports HTTP 429 without a body, and cuts a long body', async () => {
      const url = await serve((request, response) => {
        response.writeHead(server!.requests.length === 1 ? 429 : 400)
        response.end(request === server!.requests[0] ? '' : 'x'.repeat(5000))
      })
      expect((await backend.send(makeRequest(url), client)).error).toBe('HTTP 429 Too Many Requests')
      const long = await backend.send(makeRequest(url), client)
      expect(long.error).toBe(`HTTP 400 Bad Request: ${'x'.repeat(1000)}…`)
    })

    it('reports a refused connection with its cause', async () => {
      const url = `${await closedPortUrl()}${COMPLETIONS_PATH}`
      const output = await backend.send(makeRequest(url), client)
      expect(output.success).toBe(false)
      expect(output.error).toMatch(/^Request failed: .*ECONNREFUSED/)
      expect(output.startTimeS).toBeGreaterThan(0)
    })

    it('fails a stream that stalls longer than readTimeoutS and keeps partial timings', async () => {
      const url = await serve(script([write(token('a')), wait(10), write(token('b')), { kind: 'hang' }]))
      const output = await backend.send(makeRequest(url, { readTimeoutS: 0.2 }), client)
      expect(output.success).toBe(false)
      expect(output.error).toBe('Stream error: read timed out after 0.2 s without data')
      expect(output.generatedText).toBe('ab')
      expect(output.ttftS).toBeGreaterThan(0)
      expect(output.itlS).toHaveLength(1)
    })

    it('fails when the headers do not come within readTimeoutS', async () => {
      const url = await serve(() => sleep(10_000))
      const output = await backend.send(makeRequest(url, { readTimeoutS: 0.1 }), client)
      expect(output.error).toBe('Request failed: read timed out after 0.1 s waiting for response headers')
    })

    it('fails a request that exceeds timeoutS', async () => {
      const url = await serve(script([write(token('a')), { kind: 'hang' }]))
      const output = await backend.send(makeRequest(url, { timeoutS: 0.15 }), client)
      expect(output.success).toBe(false)
      expect(output.error).toBe('Stream error: request timed out after 0.15 s')
      expect(output.ttftS).toBeGreaterThan(0)
    })

    it('fails with a text saying it was aborted', async () => {
      const url = await serve(script([write(token('a')), { kind: 'hang' }]))
      const controller = new AbortController()
      const pending = backend.send(makeRequest(url, { signal: controller.signal }), client)
      await sleep(50)
      controller.abort()
      const output = await pending
      expect(output).toMatchObject({
        success: false,
        error: 'Stream error: request aborted',
        generatedText: 'a',
      })
      const already = await backend.send(makeRequest(url, { signal: controller.signal }), client)
      expect(already.error).toBe('Request failed: request aborted')
    })

    it('reports a socket destroyed mid-stream as a stream error with partial ttft', async () => {
      const url = await serve(script([write(token('a')), wait(20), { kind: 'destroy' }]))
      const output = await backend.send(makeRequest(url), client)
      expect(output.success).toBe(false)
      expect(output.error).toMatch(/^Stream error: /)
      expect(output.ttftS).toBeGreaterThan(0)
      expect(output.generatedText).toBe('a')
    })
  })
})
