import type { SimContext } from '../context.ts'
import type { GenerationRequest, StreamFormatter } from '../generation.ts'
import type { ChunkHeader } from '../sse-writer.ts'
import { chatPromptText } from './chat.ts'
import { optionalBoolean, optionalInteger, SimHttpError } from './http.ts'

/**
 * `POST /v1/responses`, streamed: `response.created`, one `response.output_text.delta` per token,
 * then `response.output_text.done` and `response.completed` with `usage.input_tokens` and
 * `usage.output_tokens`. `input` is a string or a list of messages; `max_output_tokens` caps the
 * output. Only streaming is simulated.
 * vLLM: vllm/entrypoints/openai/serving_responses.py.
 */
export function parseResponsesRequest(ctx: SimContext, body: Record<string, unknown>): GenerationRequest {
  const input = body.input
  let text: string
  if (typeof input === 'string') text = input
  else if (Array.isArray(input)) text = chatPromptText(input)
  else throw new SimHttpError(400, 'input: Field required (a string or a list of messages)', 'input')
  if (optionalBoolean(body, 'stream') !== true) {
    throw new SimHttpError(
      400,
      'servebench sim: only streamed responses are simulated; send "stream": true',
      'stream',
    )
  }
  const promptTokens = ctx.options.tokenizer.encode(text).length
  const { maxModelLen } = ctx.options
  if (promptTokens >= maxModelLen) {
    throw new SimHttpError(
      400,
      `This model's maximum context length is ${maxModelLen} tokens. However, your request has ${promptTokens} input tokens. Please reduce the length of the input.`,
    )
  }
  const requested = optionalInteger(body, 'max_output_tokens', 1)
  const maxTokens = Math.min(requested ?? maxModelLen, maxModelLen - promptTokens)
  const model = typeof body.model === 'string' && body.model !== '' ? body.model : ctx.options.model
  return {
    api: 'chat',
    model,
    choices: [{ promptTokens, seedKey: text, countsPrompt: true }],
    maxTokens,
    ignoreEos: optionalBoolean(body, 'ignore_eos') ?? false,
    stream: true,
    includeUsage: true,
    createFormatter: createResponsesFormatter,
  }
}

/** The Responses API's typed events; the stream ends after `response.completed`, without `[DONE]`. */
export function createResponsesFormatter(header: ChunkHeader): StreamFormatter {
  const responseId = `resp_${header.id.replace(/^[a-z]+-/, '')}`
  const itemId = `msg_${header.id.slice(-24)}`
  let sequence = 0
  let text = ''
  const event = (type: string, payload: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...payload })}\n\n`
  const response = (status: string, output: unknown[], usage: unknown): Record<string, unknown> => ({
    id: responseId,
    object: 'response',
    created_at: header.created,
    model: header.model,
    status,
    output,
    usage,
  })
  const message = (status: string): Record<string, unknown> => ({
    id: itemId,
    type: 'message',
    role: 'assistant',
    status,
    content: status === 'completed' ? [{ type: 'output_text', text, annotations: [] }] : [],
  })
  return {
    terminal: '',
    preamble: () =>
      event('response.created', { response: response('in_progress', [], null) }) +
      event('response.output_item.added', { output_index: 0, item: message('in_progress') }),
    token: (_index, delta) => {
      text += delta
      return event('response.output_text.delta', {
        item_id: itemId,
        output_index: 0,
        content_index: 0,
        delta,
        logprobs: [],
      })
    },
    usage: (usage) =>
      event('response.output_text.done', { item_id: itemId, output_index: 0, content_index: 0, text }) +
      event('response.output_item.done', { output_index: 0, item: message('completed') }) +
      event('response.completed', {
        response: response('completed', [message('completed')], {
          input_tokens: usage.promptTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage.completionTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.promptTokens + usage.completionTokens,
        }),
      }),
  }
}
