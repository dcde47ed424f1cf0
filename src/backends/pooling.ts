import type { RequestOutput } from '../config/records.ts'
import type { HttpClient } from './http.ts'
import { mergeCommon, poolingInput, sendPoolingRequest } from './pooling-request.ts'
import type { Backend, BackendRequest } from './types.ts'

/** Path of vLLM's pooling API. */
export const POOLING_PATH = '/pooling'

/** The `vllm-pooling` backend. */
export const poolingBackend: Backend = {
  name: 'vllm-pooling',
  defaultEndpointPath: POOLING_PATH,
  task: 'pooling',
  send(request: BackendRequest, client: HttpClient): Promise<RequestOutput> {
    return sendPoolingRequest(request, client, buildPoolingBody(request), request.promptList?.length ?? 1)
  },
}

/** `{model, input, truncate_prompt_tokens: -1}` then `extraBody`. Rust: `vllm-pooling` (backends/pooling.rs). */
export function buildPoolingBody(request: BackendRequest): Record<string, unknown> {
  return mergeCommon(
    { model: request.model, input: poolingInput(request), truncate_prompt_tokens: -1 },
    request,
  )
}
