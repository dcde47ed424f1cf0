import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type ResponseHeaders, ResponseReader, type ResponseReaderLimits } from './response-reader.ts'

interface Read {
  status: number | undefined
  headers: ResponseHeaders | undefined
  body: string
  ended: boolean
  reader: ResponseReader
}

/** Feeds `pieces` to a fresh reader and records what reached the sink. */
function read(pieces: Array<string | Buffer>, limits?: ResponseReaderLimits): Read {
  const out: Omit<Read, 'reader'> = { status: undefined, headers: undefined, body: '', ended: false }
  const reader = new ResponseReader(
    {
      onHead: (status, headers) => {
        out.status = status
        out.headers = headers
      },
      // Copies: the reader hands ranges of the pushed bytes.
      onData: (bytes, start, end) => {
        out.body += bytes.toString('latin1', start, end)
      },
      onEnd: () => {
        out.ended = true
      },
    },
    limits,
  )
  for (const piece of pieces) reader.push(typeof piece === 'string' ? Buffer.from(piece, 'latin1') : piece)
  return { ...out, reader }
}

const CHUNKED_HEAD =
  'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n'

describe('ResponseReader', () => {
  it('reads a chunked body with extensions and trailers, and keeps the socket', () => {
    const r = read([`${CHUNKED_HEAD}5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nx-trailer: 1\r\n\r\n`])
    expect(r).toMatchObject({ status: 200, body: 'hello world', ended: true })
    expect(r.headers).toEqual({ 'content-type': 'text/event-stream', 'transfer-encoding': 'chunked' })
    expect(r.reader.keepAlive).toBe(true)
  })

  it('gives repeated headers as an array under a lower-case name', () => {
    const r = read([
      'HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nX-One:  v \r\ncontent-length: 0\r\n\r\n',
    ])
    expect(r.headers).toEqual({ 'set-cookie': ['a=1', 'b=2'], 'x-one': 'v', 'content-length': '0' })
    expect(r.ended).toBe(true)
  })

  it('skips 1xx answers and reads the one that follows', () => {
    const r = read([
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n',
      'HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok',
    ])
    expect(r).toMatchObject({ status: 201, body: 'ok', ended: true })
  })

  it('reads a Content-Length body and marks bytes after it', () => {
    const r = read(['HTTP/1.1 500 Internal Server Error\r\ncontent-length: 3\r\n\r\nbad', 'extra'])
    expect(r).toMatchObject({ status: 500, body: 'bad', ended: true })
    expect(r.reader.keepAlive).toBe(false)
  })

  it('reads a body without framing until the socket ends, and does not keep the socket', () => {
    const r = read(['HTTP/1.1 200 OK\r\n\r\ndata: 1\n\n'])
    expect(r.ended).toBe(false)
    r.reader.end()
    expect(r).toMatchObject({ body: 'data: 1\n\n' })
    expect(r.reader.done).toBe(true)
    expect(r.reader.keepAlive).toBe(false)
  })

  it('does not keep a socket the server said it will close, nor an HTTP/1.0 one', () => {
    expect(read(['HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n']).reader.keepAlive).toBe(
      false,
    )
    expect(read(['HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n']).reader.keepAlive).toBe(false)
    expect(
      read(['HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 0\r\n\r\n']).reader.keepAlive,
    ).toBe(true)
  })

  it('accepts bare LF line endings', () => {
    const r = read(['HTTP/1.1 200 OK\ntransfer-encoding: chunked\n\n2\nab\n0\n\n'])
    expect(r).toMatchObject({ body: 'ab', ended: true })
  })

  it('fails a chunk size that is not hex, or too large', () => {
    expect(() => read([`${CHUNKED_HEAD}zz\r\n`])).toThrow(
      'Response does not match the HTTP/1.1 protocol (Invalid character in chunk size)',
    )
    expect(() => read([`${CHUNKED_HEAD}fffffffffffffff\r\n`])).toThrow('(Invalid character in chunk size)')
    expect(() => read([`${CHUNKED_HEAD}-1\r\n`])).toThrow('(Invalid character in chunk size)')
  })

  it('fails chunk data not followed by a line end', () => {
    expect(() => read([`${CHUNKED_HEAD}2\r\nabc\r\n`])).toThrow('(Expected LF after chunk data)')
  })

  it('fails a chunk-size line longer than its limit before holding it', () => {
    const limits = { maxHeaderBytes: 1024, maxChunkLineBytes: 64 }
    expect(() => read([CHUNKED_HEAD, `1;${'x'.repeat(40)}`, 'x'.repeat(40)], limits)).toThrow(
      '(Chunk size line too long)',
    )
  })

  it('fails headers over the limit, even when no line ends', () => {
    const limits = { maxHeaderBytes: 256, maxChunkLineBytes: 64 }
    const overflow = expect.objectContaining({
      code: 'UND_ERR_HEADERS_OVERFLOW',
      message: 'Headers Overflow Error',
    })
    expect(() => read(['HTTP/1.1 200 OK\r\n', `x-long: ${'a'.repeat(300)}`], limits)).toThrow(overflow)
    const many = Array.from({ length: 40 }, (_, i) => `x-${i}: v\r\n`)
    expect(() => read(['HTTP/1.1 200 OK\r\n', ...many], limits)).toThrow(overflow)
    expect(() => read([`${CHUNKED_HEAD}0\r\n`, ...many], limits)).toThrow(overflow)
  })

  it('fails a bad status line, a bad header name and conflicting framing', () => {
    expect(() => read(['SSH-2.0-OpenSSH\r\n\r\n'])).toThrow('(Expected HTTP/, RTSP/ or ICE/)')
    expect(() => read(['HTTP/1.1 200 OK\r\nbad name: v\r\n\r\n'])).toThrow('(Invalid header token)')
    expect(() =>
      read(['HTTP/1.1 200 OK\r\ncontent-length: 1\r\ntransfer-encoding: chunked\r\n\r\n']),
    ).toThrow("(Content-Length can't be present with Transfer-Encoding)")
    expect(() => read(['HTTP/1.1 200 OK\r\ncontent-length: 1x\r\n\r\n'])).toThrow(
      'Response body length does not match content-length header',
    )
  })

  it('fails a server that closes mid-chunk, mid-head or before Content-Length is read', () => {
    const closed = expect.objectContaining({ code: 'UND_ERR_SOCKET', message: 'other side closed' })
    for (const bytes of [
      `${CHUNKED_HEAD}5\r\nhel`,
      'HTTP/1.1 200',
      'HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nab',
      '',
    ]) {
      const r = read([bytes])
      expect(() => r.reader.end()).toThrow(closed)
    }
  })

  it('hands nothing on after stop()', () => {
    let data = 0
    const reader = new ResponseReader({
      onHead: () => {},
      onData: () => {
        data++
        reader.stop()
      },
      onEnd: () => expect.unreachable('ended after stop'),
    })
    reader.push(Buffer.from(`${CHUNKED_HEAD}1\r\na\r\n1\r\nb\r\n0\r\n\r\n`))
    expect(data).toBe(1)
    expect(reader.done).toBe(false)
  })

  it('reads the same response however the bytes are split', () => {
    const chunkArb = fc.string({ minLength: 1, maxLength: 40 })
    fc.assert(
      fc.property(
        fc.array(chunkArb, { minLength: 0, maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 8 }),
        (chunks, cutsRaw) => {
          const body = chunks.map((c) => Buffer.from(c, 'utf8'))
          const wire = Buffer.concat([
            Buffer.from(CHUNKED_HEAD),
            ...body.flatMap((b, i) => [
              Buffer.from(`${b.length.toString(16)}${i % 2 === 0 ? ';ext=1' : ''}\r\n`),
              b,
              Buffer.from('\r\n'),
            ]),
            Buffer.from('0\r\ntrailer: x\r\n\r\n'),
          ])
          const cuts = [...new Set(cutsRaw.map((c) => c % (wire.length + 1)))].sort((a, b) => a - b)
          const pieces: Buffer[] = []
          let at = 0
          for (const cut of [...cuts, wire.length]) {
            pieces.push(wire.subarray(at, cut))
            at = cut
          }
          const got: Buffer[] = []
          let ended = false
          const reader = new ResponseReader({
            onHead: () => {},
            onData: (bytes, start, end) => got.push(Buffer.from(bytes.subarray(start, end))),
            onEnd: () => {
              ended = true
            },
          })
          for (const piece of pieces) reader.push(piece)
          expect(ended).toBe(true)
          expect(Buffer.concat(got).equals(Buffer.concat(body))).toBe(true)
          expect(reader.keepAlive).toBe(true)
        },
      ),
      { seed: 1_313, numRuns: 300 },
    )
  })

  it('reads a chunked response split at every byte boundary', () => {
    const wire = Buffer.from(`${CHUNKED_HEAD}4;a=b\r\nwxyz\r\n3\r\n123\r\n0\r\nt: 1\r\n\r\n`)
    for (let cut = 0; cut <= wire.length; cut++) {
      const r = read([wire.subarray(0, cut), wire.subarray(cut)])
      expect(r, `cut at ${cut}`).toMatchObject({ status: 200, body: 'wxyz123', ended: true })
    }
    const bytewise = read([...wire].map((b) => Buffer.from([b])))
    expect(bytewise).toMatchObject({ body: 'wxyz123', ended: true })
  })
})
