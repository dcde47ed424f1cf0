import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SimServer, startSimulator } from './server.ts'

// A deliberately tiny SSE reader, independent of src/backends/sse.ts: cut on blank lines, strip `data: `.
async function readEvents(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; contentType: string; events: string[] }> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  const text = await res.body.text()
  const events = text
    .split('\n\n')
    .filter((e) => e !== '')
    .map((e) => {
      expect(e.startsWith('data: ')).toBe(true)
      return e.slice('data: '.length)
    })
  return { status: res.statusCode, contentType: String(res.headers['content-type']), events }
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> }
}

async function getText(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { headers })
  return { status: res.statusCode, text: await res.body.text() }
}

function metricValue(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
  if (!line) throw new Error(`no ${name} in /metrics`)
  return Number(line.slice(line.lastIndexOf(' ') + 1))
}

let sim: SimServer

beforeAll(async () => {
  // Fast steps keep the file quick; timing behaviour is tested in timing.serial.test.ts.
  sim = await startSimulator({
    decodeBaseMs: 1,
    decodeMsPerSeq: 0,
    prefillMsPerToken: 0,
    recordTimings: true,
  })
})
afterAll(() => sim.close())

describe('completions stream', () => {
  it('writes one text chunk per token, the last with finish_reason length, then usage and [DONE]', async () => {
    const { status, contentType, events } = await readEvents(`${sim.url}/v1/completions`, {
      model: 'any/model',
      prompt: 'hello world',
      max_tokens: 5,
      stream: true,
      stream_options: { include_usage: true },
    })
    expect(status).toBe(200)
    expect(contentType).toBe('text/event-stream; charset=utf-8')
    expect(events.at(-1)).toBe('[DONE]')
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e))
    expect(chunks).toHaveLength(6)
    const tokens = chunks.slice(0, 5)
    for (const [i, chunk] of tokens.entries()) {
      expect(Object.keys(chunk)).toEqual(['id', 'object', 'created', 'model', 'choices', 'usage'])
      expect(chunk.id).toMatch(/^cmpl-[0-9a-f]{32}$/)
      expect(chunk.id).toBe(tokens[0].id)
      expect(chunk.object).toBe('text_completion')
      expect(chunk.model).toBe('any/model')
      expect(chunk.usage).toBeNull()
      expect(chunk.choices).toHaveLength(1)
      expect(chunk.choices[0]).toMatchObject({
        index: 0,
        logprobs: null,
        finish_reason: i === 4 ? 'length' : null,
      })
      expect(chunk.choices[0].text).toMatch(/^ \w+$/)
    }
    expect(chunks[5]).toMatchObject({
      object: 'text_completion',
      choices: [],
      usage: { prompt_tokens: 2, total_tokens: 7, completion_tokens: 5 },
    })
  })

  it('sends no usage chunk without stream_options.include_usage', async () => {
    const { events } = await readEvents(`${sim.url}/v1/completions`, {
      prompt: 'x',
      max_tokens: 3,
      stream: true,
    })
    expect(events).toHaveLength(4)
    expect(events.slice(0, 3).every((e) => JSON.parse(e).choices.length === 1)).toBe(true)
  })

  it('counts a token-id prompt by its length', async () => {
    const { events } = await readEvents(`${sim.url}/v1/completions`, {
      prompt: [1, 2, 3, 4, 5, 6, 7],
      max_tokens: 2,
      stream: true,
      stream_options: { include_usage: true },
    })
    expect(JSON.parse(events.at(-2)!).usage).toEqual({
      prompt_tokens: 7,
      total_tokens: 9,
      completion_tokens: 2,
    })
  })

  it('gives the same text for the same prompt and seed', async () => {
    const body = { prompt: 'same prompt', max_tokens: 8 }
    const a = await postJson(`${sim.url}/v1/completions`, body)
    const b = await postJson(`${sim.url}/v1/completions`, body)
    const text = (r: { json: Record<string, unknown> }) => (r.json.choices as { text: string }[])[0]!.text
    expect(text(a)).toBe(text(b))
    expect(text(a).split(' ')).toHaveLength(9)
  })
})

describe('chat stream', () => {
  it('writes a role chunk, then delta.content chunks, usage and [DONE]', async () => {
    const { events } = await readEvents(`${sim.url}/v1/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello world' }] }],
      max_completion_tokens: 3,
      stream: true,
      stream_options: { include_usage: true },
    })
    expect(events.at(-1)).toBe('[DONE]')
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e))
    expect(chunks).toHaveLength(5)
    expect(chunks[0]).toEqual({
      id: expect.stringMatching(/^chatcmpl-[0-9a-f]{32}$/),
      object: 'chat.completion.chunk',
      created: expect.any(Number),
      model: 'm',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    })
    expect(chunks.slice(1, 4).map((c) => c.choices[0].finish_reason)).toEqual([null, null, 'length'])
    for (const c of chunks.slice(1, 4)) expect(Object.keys(c.choices[0].delta)).toEqual(['content'])
    expect(chunks[4]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 2, total_tokens: 5, completion_tokens: 3 },
    })
  })

  it('honours max_tokens when max_completion_tokens is absent', async () => {
    const { events } = await readEvents(`${sim.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 2,
      stream: true,
    })
    expect(events).toHaveLength(4)
  })

  it('stops early with finish_reason stop when allowed to', async () => {
    const stopper = await startSimulator({ decodeBaseMs: 1, stopProbability: 1 })
    try {
      const r = await postJson(`${stopper.url}/v1/chat/completions`, {
        messages: [{ role: 'user', content: 'hi' }],
        max_completion_tokens: 50,
      })
      expect((r.json.choices as { finish_reason: string }[])[0]!.finish_reason).toBe('stop')
      expect((r.json.usage as { completion_tokens: number }).completion_tokens).toBe(1)
      const kept = await postJson(`${stopper.url}/v1/chat/completions`, {
        messages: [{ role: 'user', content: 'hi' }],
        max_completion_tokens: 4,
        ignore_eos: true,
      })
      expect((kept.json.usage as { completion_tokens: number }).completion_tokens).toBe(4)
    } finally {
      await stopper.close()
    }
  })
})

describe('non-streamed responses', () => {
  it('returns a whole completions body with one choice per prompt of a list', async () => {
    const { status, json } = await postJson(`${sim.url}/v1/completions`, {
      prompt: ['a b', 'c'],
      max_tokens: 3,
    })
    expect(status).toBe(200)
    expect(json).toMatchObject({ object: 'text_completion', model: 'servebench/sim-model' })
    expect(Object.keys(json)).toEqual(['id', 'object', 'created', 'model', 'choices', 'usage'])
    const choices = json.choices as { index: number; text: string; finish_reason: string }[]
    expect(choices.map((c) => [c.index, c.finish_reason])).toEqual([
      [0, 'length'],
      [1, 'length'],
    ])
    expect(choices[0]!.text.split(' ')).toHaveLength(4)
    expect(json.usage).toEqual({ prompt_tokens: 3, total_tokens: 9, completion_tokens: 6 })
  })

  it('returns a whole chat body', async () => {
    const { json } = await postJson(`${sim.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'hello' }],
      max_completion_tokens: 2,
    })
    expect(json).toMatchObject({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 1, total_tokens: 3, completion_tokens: 2 },
      prompt_logprobs: null,
    })
    expect(Object.keys(json)).toEqual([
      'id',
      'object',
      'created',
      'model',
      'choices',
      'usage',
      'prompt_logprobs',
    ])
  })
})

describe('tokenizer routes', () => {
  it('round-trips /tokenize and /detokenize', async () => {
    const prompt = 'The quick brown fox jumps over the lazy dog — twice.'
    const tok = await postJson(`${sim.url}/tokenize`, { model: 'x', prompt, add_special_tokens: true })
    expect(tok.json).toMatchObject({ count: (tok.json.tokens as number[]).length, max_model_len: 32768 })
    expect(tok.json.count).toBeGreaterThan(5)
    const detok = await postJson(`${sim.url}/detokenize`, { tokens: tok.json.tokens })
    expect(detok.json).toEqual({ prompt })
  })

  it('counts chat prompt tokens like /tokenize counts the message text', async () => {
    const tok = await postJson(`${sim.url}/tokenize`, { prompt: 'one two three four' })
    const { json } = await postJson(`${sim.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'one two three four' }],
      max_completion_tokens: 1,
    })
    expect((json.usage as { prompt_tokens: number }).prompt_tokens).toBe(tok.json.count)
  })
})

describe('info routes', () => {
  it('lists the model with root = id', async () => {
    const res = await request(`${sim.url}/v1/models`)
    const json = (await res.body.json()) as { object: string; data: Record<string, unknown>[] }
    expect(json.object).toBe('list')
    expect(json.data).toHaveLength(1)
    expect(json.data[0]).toMatchObject({
      id: 'servebench/sim-model',
      root: 'servebench/sim-model',
      object: 'model',
      max_model_len: 32768,
    })
  })

  it('answers /health with an empty 200', async () => {
    expect(await getText(`${sim.url}/health`)).toEqual({ status: 200, text: '' })
  })

  it('exposes vLLM metrics that grow with traffic', async () => {
    const before = (await getText(`${sim.url}/metrics`)).text
    await postJson(`${sim.url}/v1/completions`, { prompt: 'count me', max_tokens: 4 })
    const after = (await getText(`${sim.url}/metrics`)).text
    const name = 'vllm:generation_tokens_total'
    expect(metricValue(after, name) - metricValue(before, name)).toBe(4)
    expect(
      metricValue(after, 'vllm:prompt_tokens_total') - metricValue(before, 'vllm:prompt_tokens_total'),
    ).toBe(2)
    const success = (t: string) => metricValue(t, 'vllm:request_success_total')
    expect(success(after) - success(before)).toBe(1)
    for (const h of [
      'vllm:time_to_first_token_seconds',
      'vllm:inter_token_latency_seconds',
      'vllm:e2e_request_latency_seconds',
    ]) {
      expect(after).toContain(`# TYPE ${h} histogram`)
      expect(after).toContain(`${h}_bucket{engine="0",le="+Inf",model_name="servebench/sim-model"}`)
      expect(metricValue(after, `${h}_count`)).toBeGreaterThan(metricValue(before, `${h}_count`))
    }
    expect(metricValue(after, 'vllm:num_requests_running')).toBe(0)
    expect(after).toMatch(/^servebench_sim_step_lag_seconds\{engine="0",stat="max"\} [0-9.e-]+$/m)
  })
})

describe('errors', () => {
  it('answers a bad JSON body with a 400 BadRequestError', async () => {
    const { status, json } = await postJson(`${sim.url}/v1/completions`, '{"prompt": ')
    expect(status).toBe(400)
    expect(json).toEqual({
      error: {
        message: expect.stringMatching(/^Invalid JSON body/),
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    })
  })

  it('answers an unknown route with 404 and a wrong method with 405', async () => {
    expect(await getText(`${sim.url}/v1/nope`)).toEqual({ status: 404, text: '{"detail":"Not Found"}' })
    expect(await getText(`${sim.url}/v1/completions`)).toEqual({
      status: 405,
      text: '{"detail":"Method Not Allowed"}',
    })
  })

  it('rejects a request longer than the context window', async () => {
    const { status, json } = await postJson(`${sim.url}/v1/completions`, { prompt: 'hi', max_tokens: 40_000 })
    expect(status).toBe(400)
    expect((json.error as { message: string }).message).toBe(
      "'max_tokens' is too large: 40000. This model's maximum context length is 32768 tokens and your request has 1 input tokens (40000 > 32768 - 1).",
    )
  })

  it('rejects max_tokens below 1 and a missing prompt', async () => {
    const zero = await postJson(`${sim.url}/v1/completions`, { prompt: 'hi', max_tokens: 0 })
    expect(zero.status).toBe(400)
    expect((zero.json.error as { message: string }).message).toBe('max_tokens must be at least 1, got 0.')
    const missing = await postJson(`${sim.url}/v1/completions`, { max_tokens: 1 })
    expect((missing.json.error as { message: string }).message).toBe('prompt: Field required')
  })

  it('requires the API key on API routes but not on /health and /metrics', async () => {
    const locked = await startSimulator({ apiKey: 'sekret', decodeBaseMs: 1 })
    try {
      const body = { prompt: 'hi', max_tokens: 1 }
      const denied = await postJson(`${locked.url}/v1/completions`, body)
      expect(denied).toEqual({ status: 401, json: { error: 'Unauthorized' } })
      const wrong = await postJson(`${locked.url}/v1/completions`, body, { authorization: 'Bearer nope' })
      expect(wrong.status).toBe(401)
      const ok = await postJson(`${locked.url}/v1/completions`, body, { authorization: 'Bearer sekret' })
      expect(ok.status).toBe(200)
      expect((await getText(`${locked.url}/health`)).status).toBe(200)
      expect((await getText(`${locked.url}/metrics`)).status).toBe(200)
      expect((await getText(`${locked.url}/v1/models`)).status).toBe(401)
    } finally {
      await locked.close()
    }
  })
})

describe('timing record', () => {
  it('keeps one entry per request with one stamp per choice-bearing event', async () => {
    await request(`${sim.url}/servebench/timings`, { method: 'DELETE' }).then((r) => r.body.dump())
    const id = (n: number) => ({ 'x-request-id': `rec-${n}` })
    await readEvents(
      `${sim.url}/v1/completions`,
      { prompt: 'a', max_tokens: 4, stream: true, stream_options: { include_usage: true } },
      id(1),
    )
    await readEvents(
      `${sim.url}/v1/chat/completions`,
      { messages: [{ role: 'user', content: 'b' }], max_tokens: 3, stream: true },
      id(2),
    )
    await postJson(`${sim.url}/v1/completions`, { prompt: 'c', max_tokens: 2 }, id(3))
    const res = await request(`${sim.url}/servebench/timings`)
    const records = (await res.body.json()) as {
      requestId: string
      receivedAtMs: number
      eventSentAtMs: number[]
    }[]
    expect(records.map((r) => [r.requestId, r.eventSentAtMs.length])).toEqual([
      ['rec-1', 4],
      ['rec-2', 4], // role chunk + 3 tokens
      ['rec-3', 1], // the whole body
    ])
    expect(sim.timings()).toEqual(records)
    for (const r of records) {
      expect(Math.abs(r.receivedAtMs - Date.now())).toBeLessThan(60_000)
      const stamps = [r.receivedAtMs, ...r.eventSentAtMs]
      for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThanOrEqual(stamps[i - 1]!)
    }
    await request(`${sim.url}/servebench/timings`, { method: 'DELETE' }).then((r) => r.body.dump())
    expect(sim.timings()).toEqual([])
  })
})

describe('what counts as a success', () => {
  it('counts a stream reset by a fault as aborted, not as a success', async () => {
    const own = await startSimulator({ ttftMs: 1, itlMs: 1 })
    try {
      own.setFaults([{ kind: 'reset', after: 1 }])
      const before = (await getText(`${own.url}/metrics`)).text
      const res = await request(`${own.url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'cut me', max_tokens: 4, stream: true }),
      })
      await res.body.text().catch(() => '')
      // The close is seen by the server a moment after the client.
      await new Promise((r) => setTimeout(r, 50))
      const after = (await getText(`${own.url}/metrics`)).text
      const success = (t: string): number => metricValue(t, 'vllm:request_success_total')
      expect(success(after) - success(before)).toBe(0)
    } finally {
      await own.close()
    }
  })
})
