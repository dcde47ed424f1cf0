import { describe, expect, it } from 'vitest'
import { autoClientThreads, EVENTS_PER_THREAD_S, loadOfSchedule, offeredEventsPerS } from './auto-threads.ts'

const closed = (concurrency: number, requests = 100_000) => ({
  requests,
  maxConcurrency: concurrency,
  requestRatePerS: Number.POSITIVE_INFINITY,
  eventsPerRequest: 64,
})

describe('--client-threads auto', () => {
  it('keeps one thread on a machine of two cores, whatever the load', () => {
    expect(autoClientThreads(closed(4_000), 2)).toBe(1)
    expect(autoClientThreads(closed(4_000), 1)).toBe(1)
  })

  it('keeps one thread for a light load on a large machine', () => {
    expect(autoClientThreads(closed(4), 16)).toBe(1)
    expect(autoClientThreads(closed(100), 16)).toBe(1)
    // Ten requests a second of 64 tokens: 640 events/s.
    expect(autoClientThreads({ ...closed(1_000), requestRatePerS: 10 }, 16)).toBe(1)
  })

  it('spreads a heavy closed loop over the cores, leaving one', () => {
    // 50 events/s per stream: 500 streams are 25,000 events/s, two threads' budget.
    expect(autoClientThreads(closed(500), 16)).toBe(2)
    expect(autoClientThreads(closed(2_000), 16)).toBe(7)
    expect(autoClientThreads(closed(4_000), 16)).toBe(13)
    expect(autoClientThreads(closed(4_000), 8)).toBe(7)
  })

  it('chooses at most 64 threads, what --client-threads accepts', () => {
    expect(autoClientThreads(closed(100_000), 256)).toBe(64)
  })

  it('reads an open loop by its rate and the tokens of a request', () => {
    const open = { requests: 10_000, requestRatePerS: 500, eventsPerRequest: 256 }
    expect(offeredEventsPerS(open)).toBe(128_000)
    expect(autoClientThreads(open, 16)).toBe(128_000 / EVENTS_PER_THREAD_S)
  })

  it('takes the load of a schedule: its mean rate, mean output and whether it streams', () => {
    expect(loadOfSchedule([0, 0.5, 1], [10, 20, 30], { maxConcurrency: 2, streamed: true })).toEqual({
      requests: 3,
      maxConcurrency: 2,
      requestRatePerS: 3,
      eventsPerRequest: 20,
    })
    expect(loadOfSchedule([0, 0], [10, 20], { streamed: false })).toEqual({
      requests: 2,
      requestRatePerS: Number.POSITIVE_INFINITY,
      eventsPerRequest: 1,
    })
  })
})
