import type { RequestRecord } from '../../config/records.ts'
import type { AnyBenchResult } from './run-result.ts'

/**
 * The result keys of what the server reported per request (Python, newer `serve.py`):
 * `total_cached_tokens` with `--report-cached-tokens`, right after `total_output_tokens`, and the
 * per-request `server_queue_times`, `server_ttfts` (seconds) and `response_metadata` (the
 * `x-vllm-*` headers) after `errors`, each only when some request has it, 1:1 with the
 * requests (`null` or `{}` where one has none). The three arrays are written only with
 * `--save-detailed` ({@link SERVER_DETAILED_KEYS}).
 */

/** Per-request server keys, written like the other per-request arrays only with `--save-detailed`. */
export const SERVER_DETAILED_KEYS = ['server_queue_times', 'server_ttfts', 'response_metadata'] as const

/** Python `total_cached`: the sum over successful requests that reported cached tokens; null when none did. */
export function totalCachedTokens(records: readonly RequestRecord[]): number | null {
  let total: number | null = null
  for (const record of records) {
    if (record.success && record.cachedTokens !== undefined) total = (total ?? 0) + record.cachedTokens
  }
  return total
}

/**
 * Adds the server keys to `result` in place. `total_cached_tokens` needs `reportCachedTokens` and a
 * total (Python leaves the key out when the server reported none).
 */
export function addServerKeys(
  result: AnyBenchResult,
  records: readonly RequestRecord[],
  options: { reportCachedTokens: boolean },
): void {
  const total = options.reportCachedTokens ? totalCachedTokens(records) : null
  if (total !== null) insertAfter(result, 'total_output_tokens', [['total_cached_tokens', total]])
  const detailed: Array<[string, unknown]> = []
  if (records.some((r) => r.serverQueueTimeS !== undefined || r.serverTtftS !== undefined)) {
    detailed.push(['server_queue_times', records.map((r) => r.serverQueueTimeS ?? null)])
    detailed.push(['server_ttfts', records.map((r) => r.serverTtftS ?? null)])
  }
  if (records.some((r) => r.responseMetadata !== undefined)) {
    detailed.push(['response_metadata', records.map((r) => r.responseMetadata ?? {})])
  }
  if (detailed.length > 0) insertAfter(result, 'errors', detailed)
}

/**
 * Python's warning when `--report-cached-tokens` found nothing: only when some request succeeded
 * (a run where all failed says nothing about the server's flag).
 */
export function cachedTokensWarning(records: readonly RequestRecord[]): string | undefined {
  if (!records.some((r) => r.success) || totalCachedTokens(records) !== null) return undefined
  return 'WARNING: --report-cached-tokens is set, but no response reported usage.prompt_tokens_details.cached_tokens; start vLLM with --enable-prompt-tokens-details to report them.'
}

/** Puts `entries` right after `anchor` (at the end when the result has no `anchor`), keeping the order of the rest. */
function insertAfter(result: AnyBenchResult, anchor: string, entries: Array<[string, unknown]>): void {
  if (!(anchor in result)) {
    for (const [key, value] of entries) result[key] = value
    return
  }
  const tail: Array<[string, unknown]> = []
  let after = false
  for (const key of Object.keys(result)) {
    if (after) {
      tail.push([key, result[key]])
      delete result[key]
    }
    if (key === anchor) after = true
  }
  for (const [key, value] of [...entries, ...tail]) result[key] = value
}
