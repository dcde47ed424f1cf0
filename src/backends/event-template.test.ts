import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
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

describe('a stream read through the template', () => {
  const request = {
    url: 'http://127.0.0.1:1/v1/chat/completions',
    requestId: 'r',
    model: 'm',
    prompt: 'p',
    promptLen: 3,
    outputLen: 5,
    ignoreEos: true,
    extraBody: {},
    headers: {},
  }
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
})
