import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { requestOutput } from '../../test/request-outputs.ts'
import type { RequestOutput } from '../config/records.ts'
import { waitForEndpoint } from './ready-check.ts'

const output = (success: boolean, error = ''): RequestOutput =>
  requestOutput({ success, error, outputTokens: null })

/** A probe that answers after `ms` unless its signal aborts first, like a request would. */
function delayed(ms: number, result: RequestOutput) {
  return async (signal: AbortSignal): Promise<RequestOutput> => {
    try {
      await sleep(ms, undefined, { signal })
      return result
    } catch {
      return output(false, 'Request failed: request aborted')
    }
  }
}

describe('waitForEndpoint', () => {
  it('retries until the test request succeeds', async () => {
    let calls = 0
    const result = await waitForEndpoint(
      async () => (++calls < 3 ? output(false, 'HTTP 503') : output(true)),
      5,
      {
        intervalMs: 10,
      },
    )
    expect(result.success).toBe(true)
    expect(calls).toBe(3)
  })

  it('names the last failure when the deadline passes', async () => {
    await expect(
      waitForEndpoint(async () => output(false, 'connect ECONNREFUSED'), 0.2, { intervalMs: 50 }),
    ).rejects.toThrow('Endpoint not ready after 0.2s: connect ECONNREFUSED')
  })

  it('keeps the last real failure when the deadline cuts a probe in flight', async () => {
    let calls = 0
    const probe = (signal: AbortSignal): Promise<RequestOutput> =>
      ++calls === 1
        ? Promise.resolve(output(false, 'HTTP 503 Service Unavailable'))
        : delayed(10_000, output(true))(signal)
    await expect(waitForEndpoint(probe, 0.3, { intervalMs: 20 })).rejects.toThrow(
      'Endpoint not ready after 0.3s: HTTP 503 Service Unavailable',
    )
  })

  it('says the only probe got no answer when the deadline cuts it', async () => {
    // The deadline, not the 10 s answer, ends the wait: the probe's signal is aborted by then.
    const signals: AbortSignal[] = []
    const probe = delayed(10_000, output(true))
    const watched = (signal: AbortSignal): Promise<RequestOutput> => {
      signals.push(signal)
      return probe(signal)
    }
    await expect(waitForEndpoint(watched, 0.2)).rejects.toMatchObject({
      code: 'SERVEBENCH_ENDPOINT_NOT_READY',
      message: 'Endpoint not ready after 0.2s: the test request got no answer within 0.2s',
    })
    expect(signals).toHaveLength(1)
    expect(signals[0]!.aborted).toBe(true)
  })
})
