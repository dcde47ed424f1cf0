import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { requestOutput } from '../../test/request-outputs.ts'
import { dispatch } from './dispatcher.ts'

// The lateness of a request that waited for a slot is measured from when the response before it
// ended on the client's clock; the test builds that end from the wall clock, so it is serial.
describe('dispatch lateness for the client self-check', () => {
  const due = (n: number) => Array.from({ length: n }, (_, i) => ({ offsetS: 0, payload: i }))
  const output = () => requestOutput({ success: true, error: '' })

  it('counts a waiting request late from when the response before it in its slot ended', async () => {
    // Each response's last chunk came 30 ms before its request settled: the client was slow to
    // notice, and the request that takes the slot is that much late.
    const outcome = await dispatch(
      due(3),
      async () => {
        await sleep(40)
        const now = performance.now() / 1000
        return { ...output(), startTimeS: now - 0.04, latencyS: 0.01 }
      },
      { maxConcurrency: 1, closedLoop: true },
    )
    expect(outcome.latenessMs[0]).toBeNaN()
    expect(outcome.latenessMs[1]).toBeGreaterThanOrEqual(30)
    expect(outcome.latenessMs[2]).toBeGreaterThanOrEqual(30)
  })
})
