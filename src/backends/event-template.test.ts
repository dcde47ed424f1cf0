import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { backendRequest } from '../../test/backends/backend-request.ts'
import { TextEventTemplate } from './event-template.ts'
import { createStreamHandler, pendingOutput } from './stream-request.ts'

const completionText = (choice: unknown): string | undefined => {
  const text = (choice as { text?: unknown } | null)?.text
  return typeof text === 'string' ? text : undefined
}
const chatText = (choice: unknown): string | undefined => {
  const content = (choice as { delta?: { content?: unknown } } | null)?.delta?.content
  return typeof content === 'string' ? content : undefined
}

// vLLM's chunks, as the simulator writes them.
const completion = (text: string, finish: string | null = null): string =>
  `{"id":"cmpl-7f60","object":"text_completion","created":1796167035,"model":"m","choices":[{"index":0,"text":${JSON.stringify(text)},"logprobs":null,"finish_reason":${JSON.stringify(finish)},"stop_reason":null}],"usage":null}`
const chat = (content: string, finish: string | null = null): string =>
  `{"id":"chatcmpl-f898","object":"chat.completion.chunk","created":1796167036,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]}`

describe('TextEventTemplate', () => {
  it('reads the text of the next completions and chat events without parsing them', () => {
    const completions = TextEventTemplate.learn(completion(' other'), ' other', completionText)
    expect(completions?.textOf(completion(' them'))).toBe(' them')
    expect(completions?.textOf(completion(''))).toBe('')
    const chats = TextEventTemplate.learn(chat(' other'), ' other', chatText)
    expect(chats?.textOf(chat(' naïve 😀'))).toBe(' naïve 😀')
  })

  it('leaves to JSON.parse an event that differs elsewhere or holds an escape', () => {
    const template = TextEventTemplate.learn(completion(' other'), ' other', completionText)!
    expect(template.textOf(completion(' last', 'length'))).toBeUndefined()
    expect(template.textOf(completion(' other').replace('cmpl-7f60', 'cmpl-8a71'))).toBeUndefined()
    expect(template.textOf(completion('say "hi"'))).toBeUndefined()
    expect(template.textOf(completion('a\nb'))).toBeUndefined()
    expect(template.textOf(completion('a\\b'))).toBeUndefined()
    expect(template.textOf('{"choices":[]}')).toBeUndefined()
    // The two ends overlap in a string shorter than both together.
    expect(template.textOf(completion('').slice(0, -3))).toBeUndefined()
  })

  it('learns nothing when the text is not where JSON.stringify would write it', () => {
    // The server escaped the text differently: the quoted text is not in the event.
    const escaped = completion('é').replace('"é"', '"\\u00e9"')
    expect(TextEventTemplate.learn(escaped, 'é', completionText)).toBeUndefined()
    // The quoted text is in the event, but as another field's value: the probe shows it.
    const elsewhere = '{"id":"x","choices":[{"index":0,"text":"\\u0078"}]}'
    expect(TextEventTemplate.learn(elsewhere, 'x', completionText)).toBeUndefined()
  })

  it('reads exactly what JSON.parse would, for any text around any template (seeded)', () => {
    const unit = fc.constantFrom('a', ' ', 'é', '😀', '"', '\\', '\n', '\u0001', '/', '}', ',')
    const text = fc.string({ unit, maxLength: 8 })
    fc.assert(
      fc.property(
        fc.record({ id: fc.string({ unit, maxLength: 6 }), created: fc.integer(), first: text }),
        fc.array(text, { minLength: 1, maxLength: 6 }),
        ({ id, created, first }, texts) => {
          const event = (t: string): string =>
            JSON.stringify({ id, created, choices: [{ index: 0, text: t, logprobs: null }], usage: null })
          const template =
            first === '' ? undefined : TextEventTemplate.learn(event(first), first, completionText)
          for (const t of texts) {
            const read = template?.textOf(event(t))
            if (read === undefined) continue
            expect(read).toBe(t)
          }
          // A plain text is always read by a template learned from a plain text and id.
          if (template !== undefined && /^[a-zé😀 /},]*$/u.test(id + first)) {
            expect(template.textOf(event('plain text'))).toBe('plain text')
          }
        },
      ),
      { seed: 1_313, numRuns: 400 },
    )
  })
})

describe('TextEventTemplate.textOfChunk', () => {
  const chunk = (event: string, end = '\n\n'): Buffer => Buffer.from(`data: ${event}${end}`)

  it('reads the text of a chunk that is one whole repeat of the template', () => {
    const chats = TextEventTemplate.learn(chat(' other'), ' other', chatText)!
    expect(chats.textOfChunk(chunk(chat(' naïve 😀')))).toBe(' naïve 😀')
    expect(chats.textOfChunk(chunk(chat('')))).toBe('')
    const completions = TextEventTemplate.learn(completion(' other'), ' other', completionText)!
    expect(completions.textOfChunk(chunk(completion(' them')))).toBe(' them')
  })

  it('reads a chunk given as a range of a larger buffer, as the lean transport hands it', () => {
    const template = TextEventTemplate.learn(completion(' other'), ' other', completionText)!
    const event = chunk(completion(' them'))
    // One read of a chunked body: the chunk-size line, the event, the CRLF after it.
    const read = Buffer.concat([Buffer.from(`${event.length.toString(16)}\r\n`), event, Buffer.from('\r\n')])
    const start = read.indexOf('data: ')
    expect(template.textOfChunk(read, start, start + event.length)).toBe(' them')
    expect(template.textOfChunk(read, start, start + event.length + 1)).toBeUndefined()
    expect(template.textOfChunk(read, start - 1, start + event.length)).toBeUndefined()
  })

  it('leaves to the parser any other chunk', () => {
    const template = TextEventTemplate.learn(chat(' other'), ' other', chatText)!
    const refused = [
      chunk(chat(' a'), '\r\n\r\n'), // CRLF line ends
      chunk(chat(' a'), '\n'), // the blank line in the next chunk
      Buffer.from(`data:${chat(' a')}\n\n`), // no space after the colon
      Buffer.concat([chunk(chat(' a')), chunk(chat(' b'))]), // two events
      chunk(chat('say "hi"')),
      chunk(chat('a\\b')),
      chunk(chat(' last', 'stop')),
      chunk(chat(' a')).subarray(0, 40),
    ]
    for (const bytes of refused) expect(template.textOfChunk(bytes)).toBeUndefined()
  })
})

describe('a stream read through the template', () => {
  const request = backendRequest('http://127.0.0.1:1/v1/chat/completions', {
    requestId: 'r',
    prompt: 'p',
    promptLen: 3,
    outputLen: 5,
    ignoreEos: true,
  })
  const encoder = new TextEncoder()

  it('gives the text, ITLs and usage that parsing every event gives', () => {
    const events = [
      chat(''), // vLLM's role chunk: no text to learn from.
      chat(' one'),
      chat(' two'),
      chat(' "three"'),
      chat(' four'),
      chat(' five', 'length'),
      '{"id":"chatcmpl-f898","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5}}',
      '[DONE]',
    ]
    const output = pendingOutput(request)
    const handler = createStreamHandler(0, output, chatText)
    for (const event of events) handler.chunk(encoder.encode(`data: ${event}\n\n`))
    handler.finish()
    expect(output).toMatchObject({
      success: true,
      generatedText: ' one two "three" four five',
      outputTokens: 5,
      promptLen: 3,
    })
    expect(output.itlS).toHaveLength(5)
  })

  /** Each chunk whole, or as `[bytes, start, end]`. */
  const run = (chunks: Array<Uint8Array | [Buffer, number, number]>) => {
    const output = pendingOutput(request)
    const handler = createStreamHandler(0, output, chatText)
    for (const piece of chunks) {
      if (Array.isArray(piece)) handler.chunk(...piece)
      else handler.chunk(piece)
    }
    handler.finish()
    const { success, error, generatedText, outputTokens, itlS } = output
    return { success, error, generatedText, outputTokens, events: itlS.length + 1 }
  }

  it('reads whole-event chunks from their bytes, and gives what the parser gives for any framing (seeded)', () => {
    const read = vi.spyOn(TextEventTemplate.prototype, 'textOfChunk')
    const unit = fc.constantFrom('a', ' ', 'é', '😀', '"', '\\', '\n', '\r')
    // `dangling`: a data line that is not JSON comes first, and the parser joins the event to it;
    // `raw`: the server did not escape a line feed in the text. Either way the event is not read.
    const framing = fc.constantFrom('whole', 'crlf', 'split', 'joined', 'dangling', 'raw')
    let readFromBytes = 0
    fc.assert(
      fc.property(
        fc.array(fc.record({ text: fc.string({ unit, maxLength: 5 }), framing }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer({ min: 1, max: 200 }),
        (events, cut) => {
          read.mockClear()
          const wire: string[] = []
          for (const [k, { text, framing }] of events.entries()) {
            const line = `data: ${chat(text, k === events.length - 1 ? 'length' : null)}`
            if (framing === 'crlf') wire.push(`${line}\r\n\r\n`)
            else if (framing === 'dangling') wire.push('data: not json\n', `${line}\n\n`)
            else if (framing === 'raw') wire.push(`${line.replace('"content":"', '"content":"\n')}\n\n`)
            else if (framing === 'split') wire.push(line.slice(0, cut), `${line.slice(cut)}\n\n`)
            else if (framing === 'joined' && wire.length > 0) wire[wire.length - 1] += `${line}\n\n`
            else wire.push(`${line}\n\n`)
          }
          wire.push('data: [DONE]\n\n')
          // Buffers may be read from their bytes; Uint8Arrays always go through the parser.
          const fromBuffers = run(wire.map((w) => Buffer.from(w)))
          readFromBytes += read.mock.results.filter((r) => r.value !== undefined).length
          expect(fromBuffers).toEqual(run(wire.map((w) => encoder.encode(w))))
          // The lean transport hands each chunk as a range of its read buffer, with the chunked
          // framing around it.
          const ranges = wire.map((w): [Buffer, number, number] => {
            const bytes = Buffer.from(w)
            const size = Buffer.from(`${bytes.length.toString(16)}\r\n`)
            const read = Buffer.concat([size, bytes, Buffer.from('\r\n')])
            return [read, size.length, size.length + bytes.length]
          })
          expect(run(ranges)).toEqual(fromBuffers)
          const kept = events.filter((e) => e.framing !== 'dangling' && e.framing !== 'raw')
          expect(fromBuffers.generatedText).toBe(kept.map((e) => e.text).join(''))
        },
      ),
      { seed: 2_024, numRuns: 300 },
    )
    read.mockRestore()
    // The byte path really ran, not only the parser.
    expect(readFromBytes).toBeGreaterThan(20)
  })

  it('reads no text from the bytes after a server error', () => {
    const wire = [
      chat(' one'),
      chat(' two'),
      '{"error":{"message":"engine died","code":500}}',
      chat(' three'),
    ]
    const output = run(wire.map((event) => Buffer.from(`data: ${event}\n\n`)))
    expect(output).toMatchObject({ success: false, generatedText: ' one two' })
    expect(output.error).toContain('engine died')
  })
})
