import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadTokenizer } from './index.ts'

// A character tokenizer: each code point is its id.
function startTokenizerServer(): Promise<{ server: Server; baseUrl: string; bodies: unknown[] }> {
  const bodies: unknown[] = []
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk) => {
      raw += chunk
    })
    req.on('end', () => {
      const body = JSON.parse(raw)
      bodies.push(body)
      res.setHeader('content-type', 'application/json')
      if (req.url === '/tokenize') {
        const tokens = [...body.prompt].map((c: string) => c.codePointAt(0))
        res.end(JSON.stringify({ count: tokens.length, max_model_len: 4096, tokens }))
      } else if (req.url === '/detokenize') {
        res.end(JSON.stringify({ prompt: String.fromCodePoint(...body.tokens) }))
      } else {
        res.statusCode = 404
        res.end('{}')
      }
    })
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      resolve({ server, baseUrl: `http://127.0.0.1:${port}`, bodies })
    }),
  )
}

describe('server /tokenize fallback', () => {
  let fake: Awaited<ReturnType<typeof startTokenizerServer>>
  beforeAll(async () => {
    fake = await startTokenizerServer()
  })
  afterAll(() => new Promise<void>((resolve) => fake.server.close(() => resolve())))

  it('falls back to the server for an unknown id and round-trips text', async () => {
    const tokenizer = await loadTokenizer({
      id: 'unknown-org/unknown-model',
      baseUrl: fake.baseUrl,
      model: 'served',
    })
    expect(tokenizer.kind).toBe('server')
    expect(tokenizer.numSpecialTokens).toBe(0)
    expect(tokenizer.vocabSize).toBe(131_072)
    expect(tokenizer.allowedTokenIds()).toHaveLength(131_072)
    expect(await tokenizer.encode('héllo')).toEqual([104, 233, 108, 108, 111])
    expect(await tokenizer.decode([104, 105])).toBe('hi')
    expect(fake.bodies[0]).toEqual({ model: 'served', prompt: 'test', add_special_tokens: false })
  })
})
