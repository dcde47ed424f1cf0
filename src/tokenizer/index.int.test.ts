import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { loadTokenizer } from './index.ts'

describe('loadTokenizer', () => {
  it('lists every stage that failed and suggests --tokenizer', async () => {
    const error = await loadTokenizer({ id: 'no-such-org/no-such-model' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'SERVEBENCH_TOKENIZER' })
    const message = (error as Error).message
    expect(message).toContain('Cannot load a tokenizer for "no-such-org/no-such-model"')
    expect(message).toMatch(/- tiktoken: not a built-in encoding/)
    expect(message).toMatch(/- local file: "no-such-org\/no-such-model" is not a local file or folder/)
    expect(message).toMatch(/- Hugging Face cache: no-such-org\/no-such-model is not in /)
    expect(message).toMatch(/- server: no base URL/)
    expect(message).toContain('Pass --tokenizer')
  })

  it('reports the server failure when /tokenize answers an error', async () => {
    const server = createServer((_req, res) => {
      res.statusCode = 404
      res.end('{"detail":"Not Found"}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const error = await loadTokenizer({ id: 'no-such-model', baseUrl }).catch((e: unknown) => e)
      expect((error as Error).message).toContain(`- server: POST ${baseUrl}/tokenize answered 404`)
    } finally {
      server.close()
    }
  })

  it('returns the same tokenizer for the same id', async () => {
    const [a, b] = await Promise.all([
      loadTokenizer({ id: 'cl100k_base' }),
      loadTokenizer({ id: 'cl100k_base' }),
    ])
    expect(a).toBe(b)
  })

  it('warns once for a --tokenizer-mode other than auto', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    await loadTokenizer({ id: 'cl100k_base', mode: 'slow' })
    await loadTokenizer({ id: 'cl100k_base', mode: 'mistral' })
    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn.mock.calls[0]![0]).toMatch(/^servebench: --tokenizer-mode slow is ignored/)
    warn.mockRestore()
  })
})

describe('loadTokenizer with a named tokenizer', () => {
  it('does not fall back to /tokenize for a misspelt name, and says what it tried', async () => {
    let asked = 0
    const server = createServer((_req, res) => {
      asked++
      res.end('{"tokens":[1],"count":1,"max_model_len":8}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const error = await loadTokenizer({ id: 'cl100k_bse', baseUrl, named: true }).catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'SERVEBENCH_TOKENIZER' })
      const message = (error as Error).message
      expect(message).toContain('Cannot load a tokenizer for "cl100k_bse"')
      expect(message).toMatch(/- tiktoken: not a built-in encoding \(.*cl100k_base/)
      expect(message).toContain('- server: not tried for a named tokenizer (pass --tokenizer server')
      expect(asked).toBe(0)
    } finally {
      server.close()
    }
  })
})
