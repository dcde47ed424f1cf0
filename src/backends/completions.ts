import type { RequestOutput } from '../config/records.ts'
import type { HttpClient } from './http.ts'
import { sendStreamingRequest } from './stream-request.ts'
import type { Backend, BackendRequest } from './types.ts'

/** Path of the completions API. */
export const COMPLETIONS_PATH = '/v1/completions'

/** The completions backend under one of its CLI names (`vllm`, `openai`). */
export function createCompletionsBackend(name: 'vllm' | 'openai'): Backend {
  return {
    name,
    defaultEndpointPath: COMPLETIONS_PATH,
    task: 'generation',
    async send(request: BackendRequest, client: HttpClient): Promise<RequestOutput> {
      return sendStreamingRequest(
        request,
        client,
        JSON.stringify(buildCompletionsBody(request)),
        completionText,
      )
    },
  }
}

/**
 * The request body, key order as Python's `async_request_openai_completions`
 * (vllm/benchmarks/lib/endpoint_request_func.py): `ignore_eos` only when set, then `extraBody`,
 * which may overwrite any key.
 */
export function buildCompletionsBody(request: BackendRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    prompt: request.prompt,
    repetition_penalty: 1.0,
    max_tokens: request.outputLen,
    logprobs: request.logprobs ?? null,
    stream: true,
    stream_options: { include_usage: true },
  }
  if (request.ignoreEos) body.ignore_eos = true
  return Object.assign(body, request.extraBody)
}

/** `choices[0].text`. */
function completionText(choice: unknown): string | undefined {
  const text = (choice as { text?: unknown } | null)?.text
  return typeof text === 'string' ? text : undefined
}
