import { createPoolingBackend, mergeCommon, poolingInput } from './pooling-request.ts'
import type { Backend, BackendRequest } from './types.ts'

/** Path of the OpenAI embeddings API. */
export const EMBEDDINGS_PATH = '/v1/embeddings'

/** The `openai-embeddings` backend: texts (or token ids) in `input`. */
export const embeddingsBackend: Backend = createPoolingBackend(
  'openai-embeddings',
  EMBEDDINGS_PATH,
  buildEmbeddingsBody,
)

/** The `openai-embeddings-chat` backend: one user message, as chat sends it. */
export const embeddingsChatBackend: Backend = createPoolingBackend(
  'openai-embeddings-chat',
  EMBEDDINGS_PATH,
  buildEmbeddingsChatBody,
  () => 1,
)

/**
 * `{model, input}` then `extraBody`. Rust: `openai-embeddings` in backends/pooling.rs. Deviation
 * from Python, which adds `truncate_prompt_tokens: -1`: the Rust port never sends it (its vLLM-only
 * branch cannot fire), and OpenAI's own API rejects the unknown key.
 */
export function buildEmbeddingsBody(request: BackendRequest): Record<string, unknown> {
  return mergeCommon({ model: request.model, input: poolingInput(request) }, request)
}

/** `{model, messages: [{role: user, content: [{type: text, text}]}]}` then `extraBody`. */
export function buildEmbeddingsChatBody(request: BackendRequest): Record<string, unknown> {
  if (typeof request.prompt !== 'string') {
    throw new TypeError(
      'openai-embeddings-chat sends text prompts, got token ids. This is a bug in servebench.',
    )
  }
  const text = request.prompt
  return mergeCommon(
    { model: request.model, messages: [{ role: 'user', content: [{ type: 'text', text }] }] },
    request,
  )
}
