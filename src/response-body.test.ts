import { describe, expect, it } from 'vitest'
import {
  auxTimeoutMs,
  detokenizeReplyMaxBytes,
  ResponseTooLargeError,
  readBodyCapped,
  readBodyHead,
  tokenizeReplyMaxBytes,
} from './response-body.ts'

/** A body of `count` chunks of `size` bytes that records how far it was read and whether it was dropped. */
function body(
  count: number,
  size: number,
): {
  stream: AsyncIterable<Uint8Array> & { destroy(): void }
  read: () => number
  destroyed: () => boolean
} {
  let read = 0
  let destroyed = false
  return {
    stream: {
      async *[Symbol.asyncIterator]() {
        try {
          for (let i = 0; i < count; i++) {
            read++
            yield new Uint8Array(size).fill(0x61)
          }
        } finally {
          destroyed ||= read < count
        }
      },
      destroy: () => {
        destroyed = true
      },
    },
    read: () => read,
    destroyed: () => destroyed,
  }
}

describe('readBodyCapped', () => {
  it('returns a body under its cap whole', async () => {
    const b = body(4, 10)
    expect((await readBodyCapped(b.stream, 40, 'GET /x')).toString()).toBe('a'.repeat(40))
  })

  it('stops reading at the chunk that crosses the cap and names the route', async () => {
    const b = body(1_000_000, 1024)
    const error = await readBodyCapped(b.stream, 10 * 1024, 'GET /v1/models').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ResponseTooLargeError)
    expect((error as Error).message).toBe('GET /v1/models answered more than 10240 bytes')
    expect(b.read()).toBe(11)
    expect(b.destroyed()).toBe(true)
  })

  it('refuses a declared content-length over the cap without reading', async () => {
    const b = body(10, 10)
    const error = await readBodyCapped(b.stream, 50, 'POST /tokenize', {
      contentLength: '100',
      hint: '; raise X',
    }).catch((e: unknown) => e)
    expect((error as Error).message).toBe('POST /tokenize answered more than 50 bytes; raise X')
    expect(b.read()).toBe(0)
    expect(b.destroyed()).toBe(true)
  })
})

describe('readBodyHead', () => {
  it('keeps at most maxBytes and drops the rest', async () => {
    const b = body(1_000_000, 100)
    expect(await readBodyHead(b.stream, 250)).toBe('a'.repeat(250))
    expect(b.read()).toBe(3)
  })
})

describe('the /tokenize and /detokenize caps', () => {
  it('grow with the question, from 1 MiB', () => {
    expect(tokenizeReplyMaxBytes('')).toBe(1024 * 1024)
    expect(tokenizeReplyMaxBytes('héllo')).toBe(1024 * 1024 + 16 * 6)
    expect(detokenizeReplyMaxBytes(1000)).toBe(1024 * 1024 + 1024 * 1000)
  })
})

describe('auxTimeoutMs', () => {
  it('bounds the exchange by --request-timeout, else --read-timeout, else the default', () => {
    expect(auxTimeoutMs({}, 30_000)).toEqual({ perReadMs: 30_000, wholeMs: 30_000 })
    expect(auxTimeoutMs({ timeoutS: 5 }, 30_000)).toEqual({ perReadMs: 5_000, wholeMs: 5_000 })
    expect(auxTimeoutMs({ readTimeoutS: 2 }, 30_000)).toEqual({ perReadMs: 2_000, wholeMs: 2_000 })
    expect(auxTimeoutMs({ timeoutS: 10, readTimeoutS: 0.5 }, 30_000)).toEqual({
      perReadMs: 500,
      wholeMs: 10_000,
    })
  })
})
