import { describe, expect, it } from 'vitest'
import { requestOutput } from '../../test/request-outputs.ts'
import type { RequestOutput } from '../config/records.ts'
import { dispatch } from './dispatcher.ts'
import { ABORTED, settleWithDrain, untilAborted } from './signals.ts'

const output = (): RequestOutput => requestOutput({ outputTokens: 1 })

/** A send that never settles until its signal aborts, then fails as the backends do. */
function hang(_payload: number, signal: AbortSignal): Promise<RequestOutput> {
  return new Promise((resolve) =>
    signal.addEventListener('abort', () =>
      resolve({ ...output(), success: false, error: 'request aborted' }),
    ),
  )
}

describe('untilAborted', () => {
  it('gives the work when it settles first, ABORTED when the signal does', async () => {
    expect(await untilAborted(Promise.resolve(1), new AbortController().signal)).toBe(1)
    const controller = new AbortController()
    const racing = untilAborted(new Promise<number>(() => {}), controller.signal)
    controller.abort()
    expect(await racing).toBe(ABORTED)
  })
})

describe('dispatch under a stop signal', () => {
  it('drains, then aborts, requests in flight when the signal comes after the last send', async () => {
    const controller = new AbortController()
    const running = dispatch(
      [0, 1, 2].map((i) => ({ offsetS: 0, payload: i })),
      hang,
      { signal: controller.signal, drainMs: 50 },
    )
    await new Promise((r) => setTimeout(r, 50))
    controller.abort()
    const outcome = await running
    expect(outcome.interrupted).toBe(true)
    expect(outcome.results.map((r) => r.error)).toEqual([
      'request aborted',
      'request aborted',
      'request aborted',
    ])
  })

  it('aborts at once on the force signal, without waiting out the drain', async () => {
    const stop = new AbortController()
    const force = new AbortController()
    const running = dispatch([{ offsetS: 0, payload: 0 }], hang, {
      signal: stop.signal,
      forceSignal: force.signal,
      drainMs: 3_600_000,
    })
    await new Promise((r) => setTimeout(r, 20))
    stop.abort()
    force.abort()
    expect((await running).results).toHaveLength(1)
  })

  it('waits for a send time beyond the timer range instead of firing it at once', async () => {
    const controller = new AbortController()
    let sent = 0
    const running = dispatch(
      [{ offsetS: 1e300, payload: 0 }],
      async () => {
        sent++
        return output()
      },
      { signal: controller.signal },
    )
    await new Promise((r) => setTimeout(r, 100))
    controller.abort()
    expect((await running).results).toHaveLength(0)
    expect(sent).toBe(0)
  })

  it('settles without a signal when the work does', async () => {
    let aborted = false
    await settleWithDrain(Promise.resolve(), { drainMs: 10, abortInFlight: () => (aborted = true) })
    expect(aborted).toBe(false)
  })
})
