/** Backend requests for the tests of the backends and transports. */
import type { BackendRequest } from '../../src/backends/types.ts'

/** One short text prompt to `url` for model `m`, as the test overrides it. */
export function backendRequest(url: string, overrides: Partial<BackendRequest> = {}): BackendRequest {
  return {
    url,
    requestId: 'r-0',
    model: 'm',
    prompt: 'hello',
    promptLen: 5,
    outputLen: 1,
    ignoreEos: false,
    extraBody: {},
    headers: {},
    ...overrides,
  }
}

/** The keys a chat body starts with, in Python's order, before `extra_body`'s. */
export const CHAT_BODY_KEYS = [
  'model',
  'messages',
  'max_completion_tokens',
  'stream',
  'stream_options',
  'ignore_eos',
] as const
