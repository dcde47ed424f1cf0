import { setTimeout as sleep } from 'node:timers/promises'
import type { EarlyFailure } from '../backends/types.ts'
import type { RequestOutput } from '../config/records.ts'

/** How failed requests are retried (`--max-retries`). */
export interface RetryPolicy {
  /** Retries per request after the first attempt; 0 sends each request once. */
  maxRetries: number
  /** Backoff before retry k (1-based): `baseDelayMs * 2^(k-1)`, capped at `maxDelayMs`. */
  baseDelayMs: number
  maxDelayMs: number
  /** A longer `Retry-After` is cut to this, so one answer cannot stall the run. */
  maxRetryAfterMs: number
}

/** Retries of one run. */
export interface RetryStats {
  /** Attempts after the first, over all requests. */
  retries: number
  /** Requests that needed at least one retry. */
  retriedRequests: number
  /** Retried requests that finally succeeded. */
  recovered: number
}

/** Counts with nothing retried yet: a run's start, or a reset. */
export function noRetries(): RetryStats {
  return { retries: 0, retriedRequests: 0, recovered: 0 }
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 0,
  baseDelayMs: 250,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
}

/** One attempt: sends with `onEarlyFailure` wired into the backend request. */
export type Attempt = (onEarlyFailure: (failure: EarlyFailure) => void) => Promise<RequestOutput>

/**
 * Sends a request, retrying it only when it failed before the first byte of a response body and
 * the failure is worth another try: a connect error (refused, reset, closed before the headers),
 * HTTP 429, or any 5xx. Timeouts, aborts, other statuses and anything that went wrong after the
 * body started are final. Waits `max(backoff, Retry-After)` between attempts, and stops waiting
 * when `signal` aborts. Each attempt stamps its own start time, so the output's timings are those
 * of the last attempt and the retries show as client queue time.
 * Deviation: Python never retries and the Rust port always retries connection errors (3 times);
 * servebench retries only when `--max-retries` asks.
 */
export async function sendWithRetries(
  attempt: Attempt,
  policy: RetryPolicy,
  stats: RetryStats,
  signal?: AbortSignal,
): Promise<RequestOutput> {
  let retried = false
  for (let k = 0; ; k++) {
    let failure: EarlyFailure | undefined
    const output = await attempt((f) => {
      failure = f
    })
    if (output.success || k >= policy.maxRetries || signal?.aborted || !isRetryable(failure)) {
      if (retried && output.success) stats.recovered++
      return output
    }
    if (!retried) stats.retriedRequests++
    retried = true
    stats.retries++
    try {
      await sleep(retryDelayMs(k + 1, failure, policy), undefined, signal ? { signal } : undefined)
    } catch {
      return output // The run was interrupted while waiting: the last failure stands.
    }
  }
}

/** True for a connect failure that was not a timeout, HTTP 429, and any 5xx. */
export function isRetryable(failure: EarlyFailure | undefined): boolean {
  if (!failure) return false
  if (failure.kind === 'connect') return !failure.timedOut
  return failure.status === 429 || (failure.status >= 500 && failure.status <= 599)
}

/** The wait before retry `k` (1-based): exponential backoff, or the server's `Retry-After` when longer. */
export function retryDelayMs(k: number, failure: EarlyFailure | undefined, policy: RetryPolicy): number {
  const backoffMs = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (k - 1))
  const retryAfterMs = failure?.kind === 'status' ? parseRetryAfterMs(failure.retryAfter) : undefined
  if (retryAfterMs === undefined) return backoffMs
  return Math.max(backoffMs, Math.min(retryAfterMs, policy.maxRetryAfterMs))
}

/** `Retry-After` as delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const dateMs = Date.parse(text)
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs)
}
