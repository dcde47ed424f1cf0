import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createSseParser, isCompleteJson } from './sse.ts'
import { eventTooLargeMessage, lineTooLargeMessage, StreamLimitError } from './stream-limits.ts'

const encoder = new TextEncoder()

/** Pushes each chunk; returns the payloads each push returned, then those of `end()`. */
function feed(...chunks: Array<string | Uint8Array>): { pushes: string[][]; end: string[] } {
  const parser = createSseParser()
  const pushes = chunks.map((chunk) => parser.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk))
  return { pushes, end: parser.end() }
}

// The edge cases of the Rust port's stream handler and its tests (backends/streaming.rs). Our parser returns
// `data` payloads, so the comment of the third row yields nothing instead of a message.
describe('createSseParser: Rust edge cases', () => {
  it('emits a message and [DONE] from one chunk', () => {
    const { pushes } = feed('data: {"choices":[{"text":"hi"}]}\n\ndata: [DONE]\n\n')
    expect(pushes).toEqual([['{"choices":[{"text":"hi"}]}', '[DONE]']])
  })

  it('emits a message split across two chunks only when it is complete', () => {
    const { pushes } = feed('data: {"cho', 'ices":[{"text":"a"}]}\n\n')
    expect(pushes).toEqual([[], ['{"choices":[{"text":"a"}]}']])
  })

  it('skips a comment and keeps the event after it', () => {
    const { pushes } = feed(': ping\n\ndata: {"test":1}\n\n')
    expect(pushes).toEqual([['{"test":1}']])
  })

  it('emits [DONE] without any newline', () => {
    expect(feed('data: [DONE]').pushes).toEqual([['[DONE]']])
  })

  it('emits a partial message once its JSON completes, before the blank line', () => {
    const { pushes, end } = feed('data: {"partial":', 'true}')
    expect(pushes).toEqual([[], ['{"partial":true}']])
    expect(end).toEqual([])
  })

  it('reads the data of a multi-field event', () => {
    const { pushes } = feed('event: message\ndata: {"choices":[{"text":"hi"}]}\n\n')
    expect(pushes).toEqual([['{"choices":[{"text":"hi"}]}']])
  })

  it('emits a multi-field event speculatively', () => {
    const { pushes } = feed('event: message\ndata: {"choices":[{"text":"hi"}]}')
    expect(pushes).toEqual([['{"choices":[{"text":"hi"}]}']])
  })
})

describe('createSseParser: more edge cases', () => {
  it('drops the late blank line after a speculative emit', () => {
    const { pushes, end } = feed('data: {"a":1}', '\n', '\n', 'data: {"b":2}\n\n')
    expect(pushes).toEqual([['{"a":1}'], [], [], ['{"b":2}']])
    expect(end).toEqual([])
  })

  it('emits a complete data line whose blank line is missing', () => {
    const { pushes } = feed('data: {"a":1}\n', '\ndata: {"b":2}\n\n')
    expect(pushes).toEqual([['{"a":1}'], ['{"b":2}']])
  })

  it('accepts data: without the space, and keeps a second space', () => {
    expect(feed('data:{"a":1}\n\ndata:  x\n\n').pushes).toEqual([['{"a":1}', ' x']])
  })

  it('accepts \\r\\n line ends, also split between \\r and \\n', () => {
    const { pushes } = feed('data: {"a":1}\r\n\r\ndata: x\r', '\n\r', '\n')
    // A CR ends its line at once (the LF after it is then dropped), so `x` is out with the second chunk.
    expect(pushes).toEqual([['{"a":1}'], ['x'], []])
  })

  it('joins multi-line data with \\n', () => {
    const { pushes } = feed('data: {"a":\ndata: 1}\n\ndata: one\ndata: two\n\n')
    expect(pushes).toEqual([['{"a":\n1}', 'one\ntwo']])
  })

  it('ignores event:, id: and retry: fields and keep-alive comments between events', () => {
    const { pushes } = feed(': ping\n\nid: 7\nretry: 100\nevent: x\ndata: a\n\n:keep-alive\n\ndata: b\n\n')
    expect(pushes).toEqual([['a', 'b']])
  })

  it('ignores a field that only starts with "data"', () => {
    expect(feed('database: 1\ndata: a\n\n').pushes).toEqual([['a']])
  })

  it('ignores everything after [DONE]', () => {
    const { pushes, end } = feed('data: [DONE]\n\ndata: {"late":1}\n\n', 'data: x\n\n')
    expect(pushes).toEqual([['[DONE]'], []])
    expect(end).toEqual([])
  })

  it('flushes an event without its blank line when the stream ends', () => {
    const { pushes, end } = feed('data: {"a":1}\n\ndata: not json')
    expect(pushes).toEqual([['{"a":1}']])
    expect(end).toEqual(['not json'])
  })

  it('keeps a multi-byte character split across chunks intact', () => {
    const bytes = encoder.encode('data: {"text":"é€😀"}\n\n')
    const at = bytes.indexOf(0xe2) + 1 // inside the 3-byte '€'
    const { pushes } = feed(bytes.subarray(0, at), bytes.subarray(at))
    expect(pushes).toEqual([[], ['{"text":"é€😀"}']])
  })

  it('waits for a closing brace inside a string', () => {
    expect(feed('data: {"a":"}"').pushes).toEqual([[]])
    expect(feed('data: {"a":"\\"}"}').pushes).toEqual([['{"a":"\\"}"}']])
  })

  it('parses a stream fed one byte at a time', () => {
    const bytes = encoder.encode('event: m\r\ndata: {"t":"ü"}\r\n\r\n: c\r\n\r\ndata: [DONE]\r\n\r\n')
    const parser = createSseParser()
    const events: string[] = []
    for (let i = 0; i < bytes.length; i++) events.push(...parser.push(bytes.subarray(i, i + 1)))
    events.push(...parser.end())
    expect(events).toEqual(['{"t":"ü"}', '[DONE]'])
  })
})

describe('isCompleteJson', () => {
  it.each([
    ['{}', true],
    ['  [1, {"a": [2]}]  ', true],
    ['{"a":"{"}', true],
    ['{"a":1', false],
    ['{"a":1}}', false],
    ['{"a":1} x', false],
    ['"text"', false],
    ['42', false],
    ['', false],
  ])('%j -> %s', (text, expected) => {
    expect(isCompleteJson(text)).toBe(expected)
  })
})

/** One generated event: its data lines and what the parser must return for it. */
interface GeneratedEvent {
  lines: string[]
  payload: string | null
  text: string
}

const textArb = fc.string({ unit: 'binary', maxLength: 12 })

const eventArb: fc.Arbitrary<GeneratedEvent> = fc.oneof(
  // A vLLM-like token chunk, optionally with an `event:` line and `data:` without the space.
  fc.record({ text: textArb, named: fc.boolean(), noSpace: fc.boolean() }).map(({ text, named, noSpace }) => {
    const payload = JSON.stringify({ choices: [{ index: 0, text }], usage: null })
    return {
      lines: [...(named ? ['event: message'] : []), `data:${noSpace ? '' : ' '}${payload}`],
      payload,
      text,
    }
  }),
  // The same payload on two data lines, cut after a comma so the first line is not complete.
  textArb.map((text) => {
    const payload = JSON.stringify({ id: 'x', choices: [{ text }] })
    const cut = payload.indexOf(',') + 1
    return {
      lines: [`data: ${payload.slice(0, cut)}`, `data: ${payload.slice(cut)}`],
      payload: `${payload.slice(0, cut)}\n${payload.slice(cut)}`,
      text,
    }
  }),
  fc.constant<GeneratedEvent>({ lines: [': ping'], payload: null, text: '' }),
)

const streamArb = fc
  .record({
    events: fc.array(eventArb, { maxLength: 8 }),
    crlf: fc.boolean(),
    done: fc.boolean(),
    trailingBlankLine: fc.boolean(),
  })
  .map(({ events, crlf, done, trailingBlankLine }) => {
    const eol = crlf ? '\r\n' : '\n'
    const all = done ? [...events, { lines: ['data: [DONE]'], payload: '[DONE]', text: '' }] : events
    let stream = all.map((event) => event.lines.join(eol) + eol + eol).join('')
    if (done) stream += `data: {"after":"done"}${eol}${eol}`
    else if (!trailingBlankLine && stream.endsWith(eol + eol)) stream = stream.slice(0, -eol.length)
    const payloads = all
      .map((event) => event.payload)
      .filter((payload): payload is string => payload !== null)
    return { bytes: encoder.encode(stream), payloads, text: all.map((event) => event.text).join('') }
  })

function parseInChunks(bytes: Uint8Array, cuts: number[]): string[] {
  const parser = createSseParser()
  const events: string[] = []
  let from = 0
  for (const cut of [...cuts, bytes.length]) {
    events.push(...parser.push(bytes.subarray(from, cut)))
    from = cut
  }
  events.push(...parser.end())
  return events
}

function textOf(payloads: string[]): string {
  return payloads
    .filter((payload) => payload !== '[DONE]')
    .map((payload) => (JSON.parse(payload) as { choices: Array<{ text: string }> }).choices[0]!.text)
    .join('')
}

describe('createSseParser: any split of a valid stream', () => {
  it('yields the same events and text as the whole stream', () => {
    fc.assert(
      fc.property(
        streamArb.chain((stream) =>
          fc.record({
            stream: fc.constant(stream),
            cuts: fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, stream.bytes.length - 1) }), {
              maxLength: 24,
            }),
          }),
        ),
        ({ stream, cuts }) => {
          const whole = parseInChunks(stream.bytes, [])
          expect(whole).toEqual(stream.payloads)
          const split = parseInChunks(
            stream.bytes,
            cuts.filter((cut) => cut < stream.bytes.length).sort((a, b) => a - b),
          )
          expect(split).toEqual(whole)
          expect(textOf(split)).toBe(stream.text)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('yields the same events when fed one byte at a time', () => {
    fc.assert(
      fc.property(streamArb, (stream) => {
        const everyByte = Array.from({ length: Math.max(0, stream.bytes.length - 1) }, (_, i) => i + 1)
        expect(parseInChunks(stream.bytes, everyByte)).toEqual(stream.payloads)
      }),
      { numRuns: 200 },
    )
  })
})

describe('event size limit', () => {
  it('throws a StreamLimitError when a line grows past the limit across chunks', () => {
    const parser = createSseParser(64)
    parser.push(new TextEncoder().encode(`data: ${'x'.repeat(40)}`))
    expect(() => parser.push(new TextEncoder().encode('y'.repeat(40)))).toThrow(StreamLimitError)
  })

  it('throws when the data lines of one event join past the limit', () => {
    const parser = createSseParser(64)
    const line = `data: ${'z'.repeat(30)}\n`
    // Each line ended: what is missing is the blank line that ends the event, and the message says so.
    expect(() => parser.push(new TextEncoder().encode(line.repeat(3)))).toThrow(eventTooLargeMessage(64))
  })

  it('names the missing line break when one line grows past the limit', () => {
    const parser = createSseParser(64)
    expect(() => parser.push(new TextEncoder().encode(`data: ${'x'.repeat(80)}`))).toThrow(
      lineTooLargeMessage(64),
    )
  })

  it('reads an event of many data lines without a blank line to its limit, and fails it there', () => {
    const parser = createSseParser(64 * 1024)
    const chunk = new TextEncoder().encode(`data: ${'a'.repeat(15)}\n`.repeat(1_000))
    let error: unknown
    let fed = 0
    try {
      for (; fed < 100; fed++) parser.push(chunk)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(StreamLimitError)
    expect((error as Error).message).toBe(eventTooLargeMessage(64 * 1024))
    // 16 characters per line, 15 of data and a separator: the limit is crossed in the fifth chunk.
    expect(fed).toBe(4)
  })

  it('parses events under the limit as before', () => {
    const parser = createSseParser(64)
    expect(parser.push(new TextEncoder().encode('data: {"a":1}\n\n'))).toEqual(['{"a":1}'])
  })
})

describe('line endings', () => {
  it('parses CR-only line endings', () => {
    expect(feed('data: {"a":1}\r\rdata: {"b":2}\r\r')).toEqual({ pushes: [['{"a":1}', '{"b":2}']], end: [] })
  })

  it('treats a CRLF split across chunks as one line end', () => {
    const { pushes, end } = feed('data: x\r', '\ndata: y\r', '\n\r', '\n')
    expect([...pushes.flat(), ...end]).toEqual(['x\ny'])
  })

  it('yields the same events whatever the line ends (CR, LF, CRLF) and the chunking', () => {
    const value = fc.string({ unit: fc.constantFrom('a', 'é', '😀', ' ', '{', '}'), maxLength: 12 })
    const ending = fc.constantFrom('\r', '\n', '\r\n')
    fc.assert(
      fc.property(
        fc.array(fc.tuple(value, ending, ending), { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 30 }),
        (events, cuts) => {
          // A value that is complete JSON could be emitted early; plain text keeps the blank-line rule.
          const payloads = events.map(([text]) => `v${text}`)
          // A CR then a LF would be one CRLF line end, not the blank line that ends the event.
          const ends = events.map(([, a, b]) => a + (a === '\r' && b.startsWith('\n') ? '\r' : b))
          const stream = events.map((_, i) => `data: ${payloads[i]}${ends[i]}`).join('')
          const bytes = encoder.encode(stream)
          const chunks: Uint8Array[] = []
          let at = 0
          for (let i = 0; at < bytes.length; i++) {
            const size = cuts[i % cuts.length]!
            chunks.push(bytes.subarray(at, at + size))
            at += size
          }
          const { pushes, end } = feed(...chunks)
          expect([...pushes.flat(), ...end]).toEqual(payloads)
        },
      ),
      { seed: 4_242, numRuns: 300 },
    )
  })
})

describe('SseParser.feed', () => {
  it('hands each payload to the callback in order, and finish flushes the pending one', () => {
    const parser = createSseParser()
    const seen: string[] = []
    const onData = (data: string) => seen.push(data)
    parser.feed(encoder.encode('data: {"a":1}\n\ndata: {"b"'), onData)
    expect(seen).toEqual(['{"a":1}'])
    parser.feed(encoder.encode(':2}\n'), onData)
    // The speculative flush: a complete value is handed over before its blank line.
    expect(seen).toEqual(['{"a":1}', '{"b":2}'])
    parser.feed(encoder.encode('\ndata: tail'), onData)
    parser.finish(onData)
    expect(seen).toEqual(['{"a":1}', '{"b":2}', 'tail'])
  })

  it('stops at a callback that throws: the rest of the chunk is not handed over', () => {
    const parser = createSseParser()
    const seen: string[] = []
    const chunk = encoder.encode('data: {"a":1}\n\ndata: {"b":2}\n\n')
    expect(() =>
      parser.feed(chunk, (data) => {
        seen.push(data)
        throw new StreamLimitError('over')
      }),
    ).toThrow(StreamLimitError)
    expect(seen).toEqual(['{"a":1}'])
  })
})
