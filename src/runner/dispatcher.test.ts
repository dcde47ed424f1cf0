import { describe, expect, it } from 'vitest'
import type { RequestOutput } from '../config/records.ts'
import { dispatch } from './dispatcher.ts'

const output = (error = ''): RequestOutput => ({
  success: error === '',
  error,
  generatedText: '',
  promptLen: 1,
  outputTokens: 0,
  ttftS: 0,
  itlS: [],
  latencyS: 0,
  startTimeS: 0,
})

describe('dispatch stopped while requests wait for a slot', () => {
  it('settles with the requests that were sent, never holding the ones still queued', async () => {
    const controller = new AbortController()
    const sent: number[] = []
    const outcome = await dispatch(
      // One slot: the second request waits in the queue when the stop comes; the third is not yet due.
      [
        { offsetS: 0, payload: 0 },
        { offsetS: 0, payload: 1 },
        { offsetS: 0.05, payload: 2 },
      ],
      (i, signal) => {
        sent.push(i)
        queueMicrotask(() => controller.abort())
        // A server that answers only when the request is let go.
        return new Promise((resolve) => {
          signal.addEventListener('abort', () => resolve(output('aborted')), { once: true })
        })
      },
      { maxConcurrency: 1, signal: controller.signal, drainMs: 1 },
    )
    expect(outcome.interrupted).toBe(true)
    expect(sent).toEqual([0])
    expect(outcome.results.map((r) => r.index)).toEqual([0])
  })
})
