import type { RequestOutput } from '../config/records.ts'

/**
 * What a server reports about a request beside its tokens (Python, newer `endpoint_request_func`):
 * `usage.prompt_tokens_details.cached_tokens`, the usage chunk's `metrics` object
 * (`queue_time_ms`, `time_to_first_token_ms`) and the `x-vllm-*` response headers. A value that is
 * missing, `null` or not a finite number is left out, never an error.
 */

/** Copies `usage.prompt_tokens_details.cached_tokens` into `output.cachedTokens`. */
export function readCachedTokens(usage: object, output: RequestOutput): void {
  const details = (usage as { prompt_tokens_details?: unknown }).prompt_tokens_details
  if (typeof details !== 'object' || details === null) return
  const cached = (details as { cached_tokens?: unknown }).cached_tokens
  // A count, not a measurement: a negative or fractional one is left out as missing.
  if (typeof cached === 'number' && Number.isSafeInteger(cached) && cached >= 0) output.cachedTokens = cached
}

/** Python `_update_server_metrics`: the event's `metrics` object, milliseconds turned into seconds. */
export function readServerMetrics(metrics: unknown, output: RequestOutput): void {
  if (typeof metrics !== 'object' || metrics === null) return
  const { queue_time_ms: queueMs, time_to_first_token_ms: ttftMs } = metrics as {
    queue_time_ms?: unknown
    time_to_first_token_ms?: unknown
  }
  if (isFiniteNumber(queueMs)) output.serverQueueTimeS = queueMs / 1000
  if (isFiniteNumber(ttftMs)) output.serverTtftS = ttftMs / 1000
}

/** The `x-vllm-*` headers of an answer (undici names are lower case), or undefined when it has none. */
export function vllmResponseHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> | undefined {
  let metadata: Record<string, string> | undefined
  for (const name in headers) {
    if (!name.startsWith('x-vllm-')) continue
    const value = headers[name]
    if (value === undefined) continue
    metadata ??= {}
    metadata[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return metadata
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}
