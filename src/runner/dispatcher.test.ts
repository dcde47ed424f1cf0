import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it, vi } from 'vitest'
import { requestOutput } from '../../test/request-outputs.ts'
import type { RequestOutput } from '../config/records.ts'
import { dispatch } from './dispatcher.ts'

const output = (error = ''): RequestOutput => requestOutput({ success: error === '', error })

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

describe('dispatch behind --max-concurrency', () => {
  const due = (n: number) => Array.from({ length: n }, (_, i) => ({ offsetS: 0, payload: i }))

  it('starts requests in release order, never more than the limit at once, and fills every freed slot', async () => {
    const started: number[] = []
    let inFlight = 0
    let most = 0
    const outcome = await dispatch(
      due(40),
      async (i) => {
        started.push(i)
        most = Math.max(most, ++inFlight)
        // Uneven service times: slots free in another order than they were taken.
        await sleep((i * 7) % 5)
        inFlight--
        return output()
      },
      { maxConcurrency: 3 },
    )
    expect(started).toEqual([...Array(40).keys()])
    expect(most).toBe(3)
    expect(outcome.interrupted).toBe(false)
    expect(outcome.results.map((r) => r.index).sort((a, b) => a - b)).toEqual([...Array(40).keys()])
    for (const r of outcome.results) {
      expect(r.intendedTimeS).toBe(outcome.startS)
      expect(r.arrivalTimeS).toBeGreaterThanOrEqual(outcome.startS)
      // The backend stamps the start; one stamped before its release counts no queue time.
      expect(r.queueTimeS).toBe(0)
    }
  })

  it('starts every request at once without a limit, and settles with none due', async () => {
    let inFlight = 0
    let most = 0
    const outcome = await dispatch(due(25), async () => {
      most = Math.max(most, ++inFlight)
      await sleep(1)
      inFlight--
      return output()
    })
    expect(most).toBe(25)
    expect(outcome.results).toHaveLength(25)
    expect((await dispatch([], async () => output())).results).toEqual([])
    await expect(dispatch(due(1), async () => output(), { maxConcurrency: 0 })).rejects.toThrow(
      'maxConcurrency must be at least 1 (got 0)',
    )
  })

  it('rejects with the error of a send that throws, and still sends the rest', async () => {
    const sent: number[] = []
    const run = dispatch(
      due(6),
      async (i) => {
        sent.push(i)
        await sleep(1)
        if (i === 1) throw new Error('backend bug')
        return output()
      },
      { maxConcurrency: 2 },
    )
    await expect(run).rejects.toThrow('backend bug')
    await vi.waitFor(() => expect(sent).toEqual([0, 1, 2, 3, 4, 5]))
  })
})

describe('dispatch lateness for the client self-check', () => {
  const due = (n: number) => Array.from({ length: n }, (_, i) => ({ offsetS: 0, payload: i }))

  it('times a closed loop first wave on its own and judges the requests that waited for a slot', async () => {
    let waves = 0
    let sentAtWave = -1
    const sent: number[] = []
    const outcome = await dispatch(
      due(10),
      async (i) => {
        sent.push(i)
        await sleep(1)
        return output()
      },
      {
        maxConcurrency: 4,
        closedLoop: true,
        onFirstWave: () => {
          waves++
          sentAtWave = sent.length
        },
      },
    )
    expect(waves).toBe(1)
    // Called right after the fourth request was started, before any of them answered.
    expect(sentAtWave).toBe(4)
    expect(outcome.firstWave?.requests).toBe(4)
    expect(outcome.firstWave?.releaseMs).toBeGreaterThanOrEqual(0)
    const byIndex = outcome.results.map((r, k) => [r.index, outcome.latenessMs[k]!] as const)
    for (const [index, lateMs] of byIndex) {
      if (index < 4) expect(lateMs).toBeNaN()
      else expect(lateMs).toBeGreaterThanOrEqual(0)
    }
  })

  it('has no first wave in an open loop, and judges every request against its schedule', async () => {
    let waves = 0
    const outcome = await dispatch(due(3), async () => output(), { onFirstWave: () => waves++ })
    expect(waves).toBe(0)
    expect(outcome.firstWave).toBeUndefined()
    expect(outcome.latenessMs.every((ms) => ms >= 0)).toBe(true)
  })
})
