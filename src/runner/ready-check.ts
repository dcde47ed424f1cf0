import { setTimeout as sleep } from 'node:timers/promises'
import type { RequestOutput } from '../config/records.ts'
import { EndpointError } from '../errors.ts'

export const READY_CHECK_INTERVAL_MS = 5_000

const NO_ATTEMPT = 'no attempt finished'

/**
 * Send the test request until it succeeds or `timeoutS` passes. A probe still in flight at the
 * deadline is aborted; the last failure is kept for the message; no sleep past the deadline.
 * Python: wait_for_endpoint (vllm/benchmarks/lib/ready_checker.py).
 */
export async function waitForEndpoint(
  probe: (signal: AbortSignal) => Promise<RequestOutput>,
  timeoutS: number,
  options: { intervalMs?: number; signal?: AbortSignal } = {},
): Promise<RequestOutput> {
  const intervalMs = options.intervalMs ?? READY_CHECK_INTERVAL_MS
  const deadline = performance.now() + timeoutS * 1000
  let lastError = NO_ATTEMPT
  for (;;) {
    const remainingMs = deadline - performance.now()
    if (remainingMs <= 0) break
    const attempt = AbortSignal.any([
      AbortSignal.timeout(Math.ceil(remainingMs)),
      ...(options.signal ? [options.signal] : []),
    ])
    const output = await probe(attempt)
    if (output.success) return output
    // A probe cut off by the deadline says only "aborted": keep the last real failure instead.
    const cutByDeadline = attempt.aborted && !options.signal?.aborted
    if (!cutByDeadline) lastError = output.error || 'request failed'
    else if (lastError === NO_ATTEMPT) lastError = `the test request got no answer within ${timeoutS}s`
    if (options.signal?.aborted) break
    const waitMs = Math.min(intervalMs, deadline - performance.now())
    if (waitMs <= 0) break
    await sleep(waitMs, undefined, options.signal ? { signal: options.signal } : undefined).catch(
      () => undefined,
    )
  }
  throw new EndpointError(
    'SERVEBENCH_ENDPOINT_NOT_READY',
    `Endpoint not ready after ${timeoutS}s: ${firstLine(lastError)}`,
  )
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? text
  return line.length > 300 ? `${line.slice(0, 300)}…` : line
}
