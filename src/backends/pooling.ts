import { createPoolingBackend, mergeCommon, poolingInput } from './pooling-request.ts'
import type { Backend, BackendRequest } from './types.ts'

/** Path of vLLM's pooling API. */
export const POOLING_PATH = '/pooling'

/** The `vllm-pooling` backend. */
export const poolingBackend: Backend = createPoolingBackend('vllm-pooling', POOLING_PATH, buildPoolingBody)

/** `{model, input, truncate_prompt_tokens: -1}` then `extraBody`. Rust: `vllm-pooling` (backends/pooling.rs). */
export function buildPoolingBody(request: BackendRequest): Record<string, unknown> {
  return mergeCommon(
    { model: request.model, input: poolingInput(request), truncate_prompt_tokens: -1 },
    request,
  )
}
