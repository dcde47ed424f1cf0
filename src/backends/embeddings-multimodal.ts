import type { MediaPart } from '../config/records.ts'
import { EMBEDDINGS_PATH } from './embeddings.ts'
import { createPoolingBackend, mergeCommon, poolingInput } from './pooling-request.ts'
import type { Backend, BackendRequest } from './types.ts'

/** Path of the Infinity embedding server's API (https://github.com/michaelfeil/infinity). */
export const INFINITY_EMBEDDINGS_PATH = '/embeddings'

/**
 * `openai-embeddings-clip`: a CLIP model on vLLM's embeddings API. Python
 * `async_request_openai_embeddings_clip`: a request with an image sends an empty text part.
 */
export const embeddingsClipBackend: Backend = createPoolingBackend(
  'openai-embeddings-clip',
  EMBEDDINGS_PATH,
  (request) => buildMessageEmbeddingBody(clipRequest(request), 'last'),
  () => 1,
)

/**
 * `openai-embeddings-vlm2vec`: a VLM2Vec model on vLLM's embeddings API. Python
 * `async_request_openai_embeddings_vlm2vec`: the image goes first, and the text is rewritten.
 */
export const embeddingsVlm2vecBackend: Backend = createPoolingBackend(
  'openai-embeddings-vlm2vec',
  EMBEDDINGS_PATH,
  (request) => buildMessageEmbeddingBody(vlm2vecRequest(request), 'first'),
  () => 1,
)

/** `infinity-embeddings`: the Infinity server's `{model, input}`, or an image with its `modality`. */
export const infinityEmbeddingsBackend: Backend = createPoolingBackend(
  'infinity-embeddings',
  INFINITY_EMBEDDINGS_PATH,
  buildInfinityBody,
)

/** `infinity-embeddings-clip`: as `infinity-embeddings`, the text dropped when there is an image. */
export const infinityEmbeddingsClipBackend: Backend = createPoolingBackend(
  'infinity-embeddings-clip',
  INFINITY_EMBEDDINGS_PATH,
  (request) => buildInfinityBody(clipRequest(request)),
)

/**
 * Python `_get_chat_messages`: one user message, its text part and the request's image or video
 * parts (`mmPosition` says which comes first), then `truncate_prompt_tokens: -1` (vLLM only: these
 * backends name vLLM's CLIP and VLM2Vec support), then `extraBody`.
 */
export function buildMessageEmbeddingBody(
  request: BackendRequest,
  mmPosition: 'first' | 'last',
): Record<string, unknown> {
  const text = textOf(request)
  const media = request.multiModalContent ?? []
  const textPart = [{ type: 'text', text }]
  const content = mmPosition === 'first' ? [...media, ...textPart] : [...textPart, ...media]
  return mergeCommon(
    { model: request.model, messages: [{ role: 'user', content }], truncate_prompt_tokens: -1 },
    request,
  )
}

/**
 * Python `async_request_infinity_embeddings`: `{model, input: prompt}` when there is a prompt
 * (text, a batch, or token ids); else the first image or video part's URL as `input`, with
 * `modality` `image` or `video`. Then `extraBody`.
 */
export function buildInfinityBody(request: BackendRequest): Record<string, unknown> {
  const input = poolingInput(request)
  if (input.length > 0) return mergeCommon({ model: request.model, input }, request)
  const part = request.multiModalContent?.[0]
  if (part === undefined) return mergeCommon({ model: request.model, input }, request)
  return mergeCommon(
    { model: request.model, input: mediaUrl(part), modality: part.type.split('_')[0] },
    request,
  )
}

/** Python `_preprocess_clip`: with an image, the text is blanked. */
export function clipRequest(request: BackendRequest): BackendRequest {
  if (!hasMedia(request)) return request
  const { promptList: _batch, ...single } = request
  return { ...single, prompt: '' }
}

/**
 * Python `_preprocess_vlm2vec`: with an image, a request whose id ends in an even number (or in
 * no number) asks to "Represent the given image."; an odd one adds the prompt as a question.
 */
export function vlm2vecRequest(request: BackendRequest): BackendRequest {
  if (!hasMedia(request)) return request
  const index = /(\d+)$/.exec(request.requestId)?.[1]
  const imageOnly = index === undefined || Number(index) % 2 === 0
  const prompt = imageOnly
    ? 'Represent the given image.'
    : `Represent the given image with the following question: ${textOf(request)}`
  return { ...request, prompt }
}

function hasMedia(request: BackendRequest): boolean {
  return (request.multiModalContent?.length ?? 0) > 0
}

function mediaUrl(part: MediaPart): string {
  return part.type === 'image_url' ? part.image_url.url : part.video_url.url
}

function textOf(request: BackendRequest): string {
  if (typeof request.prompt !== 'string') {
    throw new TypeError(
      'The message embedding backends send text prompts, got token ids. This is a bug in servebench.',
    )
  }
  return request.prompt
}
