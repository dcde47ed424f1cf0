import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backendRequest } from '../../test/backends/backend-request.ts'
import { startHttpServer, type TestServer } from '../../test/server-helpers.ts'
import { startSimulator } from '../sim/server.ts'
import { embeddingsBackend } from './embeddings.ts'
import {
  embeddingsClipBackend,
  embeddingsVlm2vecBackend,
  INFINITY_EMBEDDINGS_PATH,
  infinityEmbeddingsBackend,
  infinityEmbeddingsClipBackend,
} from './embeddings-multimodal.ts'
import { HttpClient } from './http.ts'
import type { Backend, BackendRequest } from './types.ts'

// A local embeddings server that records each body and answers as vLLM does for the body's
// `encoding_format`: JSON with `usage` (float), raw bytes with a `metadata` header (bytes), raw
// bytes alone (bytes_only).
let server: TestServer
let client: HttpClient
const bodies: Record<string, unknown>[] = []

beforeAll(async () => {
  client = new HttpClient({ connections: 2 })
  server = await startHttpServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>
      bodies.push(body)
      const usage = { prompt_tokens: 17, total_tokens: 17 }
      if (body.encoding_format === 'bytes' || body.encoding_format === 'bytes_only') {
        const headers: Record<string, string> = { 'content-type': 'application/octet-stream' }
        if (body.encoding_format === 'bytes') headers.metadata = JSON.stringify({ usage })
        res.writeHead(200, headers)
        res.end(Buffer.alloc(64 * 1024, 7))
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ data: [{ embedding: [0.5, 0.25] }], usage }))
    })
  })
})
afterAll(async () => {
  await client.close()
  await server.close()
})

const IMAGE = { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/AA==' } } as const

function request(overrides: Partial<BackendRequest> = {}): BackendRequest {
  return backendRequest(`${server.url}/v1/embeddings`, {
    requestId: 'bench-1-0',
    prompt: 'a photo',
    promptLen: 3,
    ...overrides,
  })
}

async function sent(backend: Backend, req: BackendRequest): Promise<Record<string, unknown>> {
  const output = await backend.send(req, client)
  expect(output).toMatchObject({ success: true, error: '' })
  return bodies.at(-1)!
}

describe('openai-embeddings-clip', () => {
  it('sends an empty text part before the image, and the text alone without one', async () => {
    expect(await sent(embeddingsClipBackend, request({ multiModalContent: [IMAGE] }))).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: '' }, IMAGE] }],
      truncate_prompt_tokens: -1,
    })
    expect(await sent(embeddingsClipBackend, request({ extraBody: { dimensions: 8 } }))).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'a photo' }] }],
      truncate_prompt_tokens: -1,
      dimensions: 8,
    })
  })
})

describe('openai-embeddings-vlm2vec', () => {
  it('puts the image first; an even request id asks for the image, an odd one adds the question', async () => {
    expect(await sent(embeddingsVlm2vecBackend, request({ multiModalContent: [IMAGE] }))).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: [IMAGE, { type: 'text', text: 'Represent the given image.' }] }],
      truncate_prompt_tokens: -1,
    })
    const odd = await sent(
      embeddingsVlm2vecBackend,
      request({ requestId: 'bench-1-7', multiModalContent: [IMAGE] }),
    )
    expect(odd.messages).toEqual([
      {
        role: 'user',
        content: [
          IMAGE,
          { type: 'text', text: 'Represent the given image with the following question: a photo' },
        ],
      },
    ])
    expect((await sent(embeddingsVlm2vecBackend, request({ requestId: 'warmup' }))).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'a photo' }] },
    ])
  })
})

describe('infinity-embeddings', () => {
  it('sends {model, input}; a batch counts its inputs; the default path is /embeddings', async () => {
    expect(INFINITY_EMBEDDINGS_PATH).toBe('/embeddings')
    expect(await sent(infinityEmbeddingsBackend, request())).toEqual({ model: 'm', input: 'a photo' })
    const batch = request({ promptList: ['a', 'b', 'c'] })
    const output = await infinityEmbeddingsBackend.send(batch, client)
    expect(output).toMatchObject({ success: true, numInputSequences: 3, promptLen: 17 })
    expect(bodies.at(-1)).toEqual({ model: 'm', input: ['a', 'b', 'c'] })
  })

  it('clip: an image is sent as its URL with modality image; text without one', async () => {
    expect(await sent(infinityEmbeddingsClipBackend, request({ multiModalContent: [IMAGE] }))).toEqual({
      model: 'm',
      input: IMAGE.image_url.url,
      modality: 'image',
    })
    expect(await sent(infinityEmbeddingsClipBackend, request())).toEqual({ model: 'm', input: 'a photo' })
  })
})

describe('encoding_format bytes and bytes_only', () => {
  it('reads usage from the metadata header (bytes), keeps the dataset length (bytes_only)', async () => {
    const bytes = await embeddingsBackend.send(request({ extraBody: { encoding_format: 'bytes' } }), client)
    expect(bytes).toMatchObject({ success: true, promptLen: 17 })
    const only = await embeddingsBackend.send(
      request({ extraBody: { encoding_format: 'bytes_only' } }),
      client,
    )
    expect(only).toMatchObject({ success: true, promptLen: 3 })
    const float = await embeddingsBackend.send(request({ extraBody: { encoding_format: 'float' } }), client)
    expect(float).toMatchObject({ success: true, promptLen: 17 })
    expect(bodies.at(-2)).toEqual({ model: 'm', input: 'a photo', encoding_format: 'bytes_only' })
  })
})

describe('encoding_format bytes against the simulator', () => {
  it('the simulator answers float32 bytes with the usage in the metadata header, and the backend reads it', async () => {
    const sim = await startSimulator({ ttftMs: 1, itlMs: 1 })
    try {
      const url = `${sim.url}/v1/embeddings`
      const raw = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: ['one two', 'three'], encoding_format: 'bytes' }),
      })
      expect(raw.headers.get('content-type')).toBe('application/octet-stream')
      expect((await raw.arrayBuffer()).byteLength).toBe(2 * 8 * 4)
      const metadata = JSON.parse(raw.headers.get('metadata')!) as { usage: { prompt_tokens: number } }
      expect(metadata.usage.prompt_tokens).toBe(3)
      const output = await embeddingsBackend.send(
        request({ url, prompt: 'one two three four', extraBody: { encoding_format: 'bytes' } }),
        client,
      )
      expect(output).toMatchObject({ success: true, promptLen: 4 })
      const only = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'x', encoding_format: 'bytes_only' }),
      })
      expect(only.headers.get('metadata')).toBeNull()
      expect((await only.arrayBuffer()).byteLength).toBe(8 * 4)
    } finally {
      await sim.close()
    }
  })
})
