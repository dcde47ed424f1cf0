// Writes vLLM's OpenAI-compatible wire format with the simulator's own code: the client's parser
// is tested against this, so the two must never share code (docs/design.md, "Layering").
// vLLM: vllm/entrypoints/openai/serving_completion.py and serving_chat.py

/** Token counts as vLLM reports them in `usage`. */
export interface Usage {
  promptTokens: number
  completionTokens: number
  /** With `--enable-prompt-tokens-details`: the prompt tokens served from the prefix cache. */
  cachedTokens?: number
}

/** Identity shared by every chunk of one response. */
export interface ChunkHeader {
  id: string
  created: number
  model: string
}

/** Formats the events of one streamed response; each method returns one whole `data: …\n\n` event. */
export interface ChunkFormatter {
  /** Events written before the first token's text (the chat role chunk); empty for completions. */
  preamble(index: number): string
  /** One token's event; `finishReason` is set on the last one. */
  token(index: number, text: string, finishReason: 'length' | 'stop' | null): string
  /** The trailing `choices: []` usage event sent when `stream_options.include_usage` is true. */
  usage(usage: Usage): string
}

/** The stream terminator. */
export const SSE_DONE = 'data: [DONE]\n\n'

/** Headers of a streamed response (Starlette adds the charset to text media types). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
} as const

/** Completions chunks: `{"id","object":"text_completion","created","model","choices":[…],"usage":null}`. */
export function createCompletionFormatter(header: ChunkHeader): ChunkFormatter {
  const head = `data: {"id":${JSON.stringify(header.id)},"object":"text_completion","created":${header.created},"model":${JSON.stringify(header.model)}`
  return {
    preamble: () => '',
    token: (index, text, finishReason) =>
      `${head},"choices":[{"index":${index},"text":${JSON.stringify(text)},"logprobs":null,"finish_reason":${reasonJson(finishReason)},"stop_reason":null}],"usage":null}\n\n`,
    usage: (usage) => `${head},"choices":[],"usage":${usageJson(usage)}}\n\n`,
  }
}

/** Chat chunks: a role chunk, then `delta.content` chunks; `usage` is absent until the usage chunk. */
export function createChatFormatter(header: ChunkHeader): ChunkFormatter {
  const head = `data: {"id":${JSON.stringify(header.id)},"object":"chat.completion.chunk","created":${header.created},"model":${JSON.stringify(header.model)}`
  return {
    preamble: (index) =>
      `${head},"choices":[{"index":${index},"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`,
    token: (index, text, finishReason) =>
      `${head},"choices":[{"index":${index},"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":${reasonJson(finishReason)}}]}\n\n`,
    usage: (usage) => `${head},"choices":[],"usage":${usageJson(usage)}}\n\n`,
  }
}

/** One finished choice of a non-streamed response. */
export interface FinishedChoice {
  text: string
  finishReason: 'length' | 'stop'
}

/** The whole JSON body of a non-streamed completions response. */
export function completionBody(header: ChunkHeader, choices: FinishedChoice[], usage: Usage): string {
  const texts = choices.map((c, index) => ({
    index,
    text: c.text,
    logprobs: null,
    finish_reason: c.finishReason,
    stop_reason: null,
    prompt_logprobs: null,
  }))
  return responseBody(header, 'text_completion', texts, usage)
}

/** The whole JSON body of a non-streamed chat response. */
export function chatBody(header: ChunkHeader, choices: FinishedChoice[], usage: Usage): string {
  const messages = choices.map((c, index) => ({
    index,
    message: { role: 'assistant', content: c.text, tool_calls: [] },
    logprobs: null,
    finish_reason: c.finishReason,
    stop_reason: null,
  }))
  return responseBody(header, 'chat.completion', messages, usage, { prompt_logprobs: null })
}

/** The envelope vLLM wraps a non-streamed response's choices in: header keys, choices, usage, then `tail`. */
function responseBody(
  header: ChunkHeader,
  object: string,
  choices: object[],
  usage: Usage,
  tail: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    id: header.id,
    object,
    created: header.created,
    model: header.model,
    choices,
    usage: usageObject(usage),
    ...tail,
  })
}

function reasonJson(reason: 'length' | 'stop' | null): string {
  return reason === null ? 'null' : `"${reason}"`
}

function usageObject(usage: Usage): {
  prompt_tokens: number
  total_tokens: number
  completion_tokens: number
  prompt_tokens_details?: { cached_tokens: number }
} {
  return {
    prompt_tokens: usage.promptTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    completion_tokens: usage.completionTokens,
    ...(usage.cachedTokens !== undefined
      ? { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }
      : {}),
  }
}

function usageJson(usage: Usage): string {
  return JSON.stringify(usageObject(usage))
}
