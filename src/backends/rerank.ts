import { createPoolingBackend, mergeCommon } from './pooling-request.ts'
import type { Backend, BackendRequest } from './types.ts'

/** Path of vLLM's rerank API (vLLM also serves `/rerank` and `/v2/rerank`). */
export const RERANK_PATH = '/v1/rerank'

/** The `vllm-rerank` backend: one query scored against documents. */
export const rerankBackend: Backend = createPoolingBackend(
  'vllm-rerank',
  RERANK_PATH,
  buildRerankBody,
  (_request, body) => (Array.isArray(body.documents) ? body.documents.length : 1),
)

/**
 * With a prompt list (`random-rerank`): `{model, query: list[0], documents: list[1..],
 * truncate_prompt_tokens: -1}`. Without one (the legacy path): `{model, query: prompt,
 * truncate_prompt_tokens: -1}`, the documents coming from `--extra-body`. `extraBody` is merged
 * last, as the Rust port and newer Python do. Rust: `vllm-rerank` (backends/pooling.rs).
 */
export function buildRerankBody(request: BackendRequest): Record<string, unknown> {
  const list = request.promptList
  const body: Record<string, unknown> =
    list !== undefined && list.length > 0
      ? { model: request.model, query: list[0], documents: list.slice(1), truncate_prompt_tokens: -1 }
      : { model: request.model, query: promptText(request), truncate_prompt_tokens: -1 }
  return mergeCommon(body, request)
}

function promptText(request: BackendRequest): string {
  if (typeof request.prompt !== 'string') {
    throw new TypeError('vllm-rerank sends a text query, got token ids. This is a bug in servebench.')
  }
  return request.prompt
}
