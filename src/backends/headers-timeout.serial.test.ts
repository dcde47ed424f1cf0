import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backendRequest } from '../../test/backends/backend-request.ts'
import { onQuietMachine } from '../../test/serial/cpu-share.ts'
import { chatBackend } from './chat.ts'
import { HttpClient } from './http.ts'
import type { BackendRequest } from './types.ts'

// Slow response headers on a fresh connection: undici's own headersTimeout does not catch this case.
describe('--read-timeout while waiting for response headers', () => {
  let url = ''
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end('data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n')
      }, 800)
    })
  })
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`
  })
  afterAll(() => {
    server.closeAllConnections()
    server.close()
  })

  const request = (readTimeoutS: number): BackendRequest =>
    backendRequest(url, { promptLen: 1, readTimeoutS })

  it('fails the first request on a fresh connection when headers come later than the read timeout', async ({
    skip,
  }) => {
    const client = new HttpClient({ connections: 1 })
    try {
      let elapsedMs = 0
      const { result: output, busy } = await onQuietMachine(async () => {
        const started = performance.now()
        const sent = await chatBackend.send(request(0.2), client)
        elapsedMs = performance.now() - started
        return sent
      })
      expect(output.success).toBe(false)
      expect(output.error).toBe('Request failed: read timed out after 0.2 s waiting for response headers')
      if (busy) return skip(busy)
      expect(elapsedMs).toBeLessThan(700)
    } finally {
      await client.close()
    }
  })

  it('succeeds when the headers come within the read timeout', async () => {
    const client = new HttpClient({ connections: 1 })
    try {
      const output = await chatBackend.send(request(2), client)
      expect(output.success).toBe(true)
      expect(output.generatedText).toBe('hi')
    } finally {
      await client.close()
    }
  })
})
