import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backendRequest } from '../../test/backends/backend-request.ts'
import { onQuietMachine } from '../../test/serial/cpu-share.ts'
import { buildEmbeddingsBody, buildEmbeddingsChatBody } from './embeddings.ts'
import { HttpClient } from './http.ts'
import { BACKENDS } from './index.ts'
import { buildPoolingBody, poolingBackend } from './pooling.ts'
import { buildRerankBody, rerankBackend } from './rerank.ts'
import type { BackendRequest } from './types.ts'

function request(overrides: Partial<BackendRequest> = {}): BackendRequest {
  return backendRequest('http://127.0.0.1:1/x', { outputLen: 0, ...overrides })
}

// After the Rust port's pooling backend and its tests (backends/pooling.rs).
describe('pooling payloads', () => {
  it('embeddings send the prompt list as input, without truncate_prompt_tokens', () => {
    const body = buildEmbeddingsBody(request({ promptList: ['t1', 't2', 't3'] }))
    expect(body).toEqual({ model: 'm', input: ['t1', 't2', 't3'] })
  })

  it('embeddings send token ids, else the text', () => {
    expect(buildEmbeddingsBody(request({ prompt: [1, 2, 3] })).input).toEqual([1, 2, 3])
    expect(buildEmbeddingsBody(request()).input).toBe('hello')
  })

  it('embeddings-chat sends one user message whose content is a text part', () => {
    expect(buildEmbeddingsChatBody(request())).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
    })
  })

  it('pooling adds truncate_prompt_tokens -1 and extra body keys last', () => {
    const body = buildPoolingBody(request({ extraBody: { truncate_prompt_tokens: 8, dimensions: 4 } }))
    expect(body).toEqual({ model: 'm', input: 'hello', truncate_prompt_tokens: 8, dimensions: 4 })
    expect(Object.keys(body)).toEqual(['model', 'input', 'truncate_prompt_tokens', 'dimensions'])
  })

  it('rerank with a prompt list sends the query and the documents', () => {
    expect(buildRerankBody(request({ promptList: ['q', 'a', 'b'] }))).toEqual({
      model: 'm',
      query: 'q',
      documents: ['a', 'b'],
      truncate_prompt_tokens: -1,
    })
  })

  it('rerank without a list sends the prompt as the query and no documents', () => {
    const body = buildRerankBody(request({ prompt: 'query text' }))
    expect(body).toEqual({ model: 'm', query: 'query text', truncate_prompt_tokens: -1 })
    expect(body).not.toHaveProperty('documents')
  })

  it('pooling and generation backends say which task they run', () => {
    const pooling = Object.values(BACKENDS)
      .filter((b) => b.task === 'pooling')
      .map((b) => b.name)
    expect(pooling.sort()).toEqual([
      'infinity-embeddings',
      'infinity-embeddings-clip',
      'openai-embeddings',
      'openai-embeddings-chat',
      'openai-embeddings-clip',
      'openai-embeddings-vlm2vec',
      'vllm-pooling',
      'vllm-rerank',
    ])
  })
})

describe('pooling timing and errors against a local server', () => {
  let server: Server
  let base = ''
  let bodies: unknown[] = []
  const client = new HttpClient({ connections: 4 })

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')))
        if (req.url === '/fail') {
          res.writeHead(400, { 'content-type': 'application/json' })
          res.end('{"error":"bad input"}')
          return
        }
        // Headers now, the body 150 ms later: latency must stop at the headers.
        res.writeHead(200, { 'content-type': 'application/json' })
        res.flushHeaders()
        setTimeout(() => res.end('{"usage":{"prompt_tokens":42,"total_tokens":42}}'), 150)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await client.close()
    await new Promise((resolve) => server.close(resolve))
  })

  it('times to the response headers, then reads usage.prompt_tokens from the body', async ({ skip }) => {
    bodies = []
    const { result: out, busy } = await onQuietMachine(() =>
      poolingBackend.send(request({ url: `${base}/pooling`, promptList: ['a', 'b'] }), client),
    )
    expect(out.success).toBe(true)
    expect(out.error).toBe('')
    expect(out.latencyS).toBe(out.ttftS)
    expect(out.promptLen).toBe(42)
    expect(out.numInputSequences).toBe(2)
    expect(bodies).toEqual([{ model: 'm', input: ['a', 'b'], truncate_prompt_tokens: -1 }])
    // The body comes 150 ms after the headers; on a busy machine a late read can pass 150 ms anyway.
    if (busy) return skip(busy)
    expect(out.latencyS).toBeLessThan(0.15)
  })

  it('counts rerank documents as its input sequences', async () => {
    const out = await rerankBackend.send(
      request({ url: `${base}/rerank`, promptList: ['q', 'a', 'b', 'c'] }),
      client,
    )
    expect(out.numInputSequences).toBe(3)
  })

  it('records a non-2xx answer as a failure with its status and body', async () => {
    const out = await poolingBackend.send(request({ url: `${base}/fail` }), client)
    expect(out.success).toBe(false)
    expect(out.error).toBe('HTTP 400 Bad Request: {"error":"bad input"}')
  })

  it('records a connection failure as Request failed', async () => {
    const out = await poolingBackend.send(request({ url: 'http://127.0.0.1:1/pooling' }), client)
    expect(out.success).toBe(false)
    expect(out.error).toMatch(/^Request failed: /)
  })
})
