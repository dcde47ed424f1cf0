import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { backendRequest, CHAT_BODY_KEYS } from '../../test/backends/backend-request.ts'
import {
  HTTP_TRANSPORT_CASES,
  playSse,
  type ScriptServer,
  type ScriptStep,
  sse,
  startScriptServer,
} from '../../test/backends/script-server.ts'
import { buildChatBody, CHAT_COMPLETIONS_PATH, chatBackend } from './chat.ts'
import { HttpClient } from './http.ts'
import type { BackendRequest } from './types.ts'

let client: HttpClient
let server: ScriptServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
})

async function serveScript(steps: ScriptStep[]): Promise<string> {
  server = await startScriptServer((_request, response) => playSse(response, steps))
  return `${server.baseUrl}${CHAT_COMPLETIONS_PATH}`
}

function makeRequest(url: string, overrides: Partial<BackendRequest> = {}): BackendRequest {
  return backendRequest(url, {
    requestId: 'r-1',
    model: 'Qwen/Qwen3-0.6B',
    prompt: 'hello "world"\nline2',
    promptLen: 4,
    outputLen: 128,
    ...overrides,
  })
}

const delta = (fields: Record<string, unknown>): string =>
  sse({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: fields }] })
const write = (data: string): ScriptStep => ({ kind: 'write', data })
const wait = (ms: number): ScriptStep => ({ kind: 'sleep', ms })

// The streaming path over each transport: the lean one (backends/lean/) and undici.
describe.for(HTTP_TRANSPORT_CASES)('over %s', (transport) => {
  beforeAll(() => {
    client = new HttpClient({ connections: 4, transport })
  })
  afterAll(() => client.close())

  describe('chat request', () => {
    it('sends the Python body: one user message with an array content, no logprobs', async () => {
      const url = await serveScript([write(delta({ content: 'x' }))])
      await chatBackend.send(
        makeRequest(url, { ignoreEos: true, logprobs: 3, extraBody: { temperature: 0.5, stream: false } }),
        client,
      )
      const body = JSON.parse(server!.requests[0]!.body) as Record<string, unknown>
      expect(Object.keys(body)).toEqual([...CHAT_BODY_KEYS, 'temperature'])
      // Python's `payload.update(extra_body)` may overwrite `stream` too.
      expect(body).toEqual({
        model: 'Qwen/Qwen3-0.6B',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hello "world"\nline2' }] }],
        max_completion_tokens: 128,
        stream: false,
        stream_options: { include_usage: true },
        ignore_eos: true,
        temperature: 0.5,
      })
      expect(server!.requests[0]!.url).toBe(CHAT_COMPLETIONS_PATH)
    })

    it('refuses token-id prompts: chat sends text', async () => {
      expect(() => buildChatBody(makeRequest('http://x', { prompt: [1, 2] }))).toThrow(/sends text prompts/)
      await expect(chatBackend.send(makeRequest('http://x', { prompt: [1, 2] }), client)).rejects.toThrow(
        TypeError,
      )
    })
  })

  describe('chat stream', () => {
    // The first vector of the Rust port's chat tests (backends/openai_chat.rs).
    it('times 3 chunks, then 150 ms silence, usage and [DONE]', async () => {
      const url = await serveScript([
        write(delta({ content: 'a' })),
        write(delta({ content: 'b' })),
        write(delta({ content: 'c' })),
        wait(150),
        write(sse({ choices: [], usage: { completion_tokens: 3 } })),
        write(sse('[DONE]')),
      ])
      const before = performance.now()
      const output = await chatBackend.send(makeRequest(url), client)
      const totalS = (performance.now() - before) / 1000
      expect(output).toMatchObject({
        success: true,
        error: '',
        generatedText: 'abc',
        outputTokens: 3,
        promptLen: 4,
      })
      expect(output.itlS).toHaveLength(2)
      const sumItl = output.itlS.reduce((a, b) => a + b, 0)
      expect(Math.abs(output.latencyS - output.ttftS - sumItl)).toBeLessThan(1e-9)
      // The usage chunk came 150 ms after the last token: it must not extend latency. Half the
      // silence is the margin for a loaded machine; a latency ending at the usage chunk leaves ~0.
      expect(totalS - output.latencyS).toBeGreaterThan(0.075)
    })

    it('fails a stream holding only the usage chunk and [DONE]', async () => {
      const url = await serveScript([
        write(sse({ choices: [], usage: { completion_tokens: 0 } })),
        write(sse('[DONE]')),
      ])
      const output = await chatBackend.send(makeRequest(url), client)
      expect(output.success).toBe(false)
      expect(output.error).toContain('Never received a valid chunk')
    })

    it('counts a role-only first chunk for TTFT and reasoning deltas for ITL, collecting content only', async () => {
      const url = await serveScript([
        write(delta({ role: 'assistant', content: '' })),
        wait(40),
        write(delta({ reasoning_content: 'hmm' })),
        wait(10),
        write(delta({ content: 'Hi' })),
        write(delta({ content: null })),
        write(sse({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 3 } })),
        write(sse('[DONE]')),
      ])
      const output = await chatBackend.send(makeRequest(url), client)
      expect(output).toMatchObject({ success: true, generatedText: 'Hi', outputTokens: 3, promptLen: 9 })
      expect(output.itlS).toHaveLength(3)
      expect(output.itlS[0]).toBeGreaterThan(0.02) // the 40 ms pause, with a margin for a loaded machine
    })

    it('fails on an error event and includes the server message', async () => {
      const url = await serveScript([
        write(sse({ error: { message: 'maximum context length is 4096 tokens', code: 400 } })),
        write(sse('[DONE]')),
      ])
      const output = await chatBackend.send(makeRequest(url), client)
      expect(output.success).toBe(false)
      expect(output.error).toBe('Error event in stream: maximum context length is 4096 tokens (400)')
    })

    it('reads events split inside a multi-byte character and a CRLF stream', async () => {
      const bytes = Buffer.from(
        'data: {"choices":[{"delta":{"content":"héllo 😀"}}]}\r\n\r\ndata: [DONE]\r\n\r\n',
      )
      const cut = bytes.indexOf(0xf0) + 2 // inside the 4-byte emoji
      const url = await serveScript([
        { kind: 'write', data: bytes.subarray(0, cut) },
        wait(20),
        { kind: 'write', data: bytes.subarray(cut) },
      ])
      const output = await chatBackend.send(makeRequest(url), client)
      expect(output).toMatchObject({ success: true, generatedText: 'héllo 😀' })
    })
  })
})
