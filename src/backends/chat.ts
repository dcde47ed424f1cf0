import type { AudioInput, InputAudioPart, RequestOutput } from '../config/records.ts'
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
 * message whose content is always an array (the text part, then any image or video parts, then
 * the request's `audio` as an `input_audio` part), or the
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
      {
        role: 'user',
        content: [
          { type: 'text', text },
          ...(request.multiModalContent ?? []),
          ...(request.audio ? [inputAudioPart(request.audio)] : []),
        ],
      },
    ],
    max_completion_tokens: request.outputLen,
    stream: true,
    stream_options: { include_usage: true },
  }
  if (request.ignoreEos) body.ignore_eos = true
  return Object.assign(body, request.extraBody, request.requestOverrides)
}

/**
 * Python's `{"type": "input_audio", "input_audio": {"data": <base64>, "format": "wav"}}` for a
 * dataset's audio file: the bytes as they are, `format` from the file's extension (`wav`, `flac`,
 * `mp3`). Built per request so a run never holds every file's base64 at once.
 */
export function inputAudioPart(audio: AudioInput): InputAudioPart {
  const bytes = Buffer.from(audio.bytes.buffer, audio.bytes.byteOffset, audio.bytes.byteLength)
  const format = audio.fileName.slice(audio.fileName.lastIndexOf('.') + 1)
  return { type: 'input_audio', input_audio: { data: bytes.toString('base64'), format } }
}

/**
 * `choices[0].delta.content`. A role-only or reasoning-only delta has none, yet still counts as a
 * token chunk for TTFT and ITL (Python and Rust agree).
 */
function chatText(choice: unknown): string | undefined {
  const content = (choice as { delta?: { content?: unknown } | null } | null)?.delta?.content
  return typeof content === 'string' ? content : undefined
}
