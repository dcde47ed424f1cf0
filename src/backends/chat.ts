import type { RequestOutput } from '../config/records.ts'
import type { HttpClient } from './http.ts'
import { sendStreamingRequest } from './stream-request.ts'
import type { Backend, BackendRequest } from './types.ts'

/** Path of the chat completions API. */
export const CHAT_COMPLETIONS_PATH = '/v1/chat/completions'

/** The `openai-chat` backend. */
export const chatBackend: Backend = {
  name: 'openai-chat',
  defaultEndpointPath: CHAT_COMPLETIONS_PATH,
  task: 'generation',
  async send(request: BackendRequest, client: HttpClient): Promise<RequestOutput> {
    return sendStreamingRequest(request, client, JSON.stringify(buildChatBody(request)), chatText)
  },
}

/**
 * The request body, key order as Python's `async_request_openai_chat_completions`: one user
 * message whose content is always an array (the text part, then any image parts), or the
 * request's own `chatMessages`; no `logprobs`; `ignore_eos` only when set, then `extraBody`,
 * which may overwrite any key, then the request's `requestOverrides` (BFCL's `tools`), which win
 * over both. Throws for token-id prompts: the runner sends chat text.
 */
export function buildChatBody(request: BackendRequest): Record<string, unknown> {
  if (typeof request.prompt !== 'string') {
    throw new TypeError('openai-chat sends text prompts, got token ids. This is a bug in servebench.')
  }
  const text = request.prompt
  const body: Record<string, unknown> = {
    model: request.model,
    messages: request.chatMessages ?? [
      { role: 'user', content: [{ type: 'text', text }, ...(request.multiModalContent ?? [])] },
    ],
    max_completion_tokens: request.outputLen,
    stream: true,
    stream_options: { include_usage: true },
  }
  if (request.ignoreEos) body.ignore_eos = true
  return Object.assign(body, request.extraBody, request.requestOverrides)
}

/**
 * `choices[0].delta.content`. A role-only or reasoning-only delta has none, yet still counts as a
 * token chunk for TTFT and ITL (Python and Rust agree).
 */
function chatText(choice: unknown): string | undefined {
  const content = (choice as { delta?: { content?: unknown } | null } | null)?.delta?.content
  return typeof content === 'string' ? content : undefined
}
