import { describe, expect, it } from 'vitest'
import { type ClientHealthSummary, summarizeClientHealth } from '../../metrics/client-health.ts'
import { threadAdvice, threadAdviceLine } from './thread-advice.ts'

/** A thread's self-check whose event loop was busy `share` of a 10 s run. */
function thread(share: number): ClientHealthSummary {
  return summarizeClientHealth({
    durationS: 10,
    eventLoopDelayMs: { p50: 1, p99: share > 0.9 ? 80 : 5, max: 90 },
    dispatchLagsMs: [],
    cpuTimeMs: share * 10_000,
    cpuCount: 16,
    gcPausesMs: [],
  })
}

describe('the threads a saturated run would have needed', () => {
  it('says nothing when the client kept up', () => {
    expect(threadAdvice({ ...thread(0.4), clientThreads: 1 }, 16)).toBeUndefined()
  })

  it('scales one busy thread to threads about half busy', () => {
    const one = { ...thread(0.97), clientThreads: 1 }
    expect(one.saturated).toBe(true)
    const advice = threadAdvice(one, 16)!
    expect(advice).toMatchObject({ threads: 1, needed: 2, room: 15 })
    expect(threadAdviceLine(advice)).toBe(
      'servebench: the client was saturated with --client-threads 1 (its busiest thread was busy 97% of the run); --client-threads 2 would have kept up',
    )
    // A process busy on several cores at once (one thread, GC and the rest) scales the same way.
    expect(threadAdvice({ ...one, cpuShareOfCore: 2.4 }, 16)?.needed).toBe(5)
  })

  it('reads the busiest client thread of a threaded run', () => {
    const main = { ...thread(0.1), clientThreads: 4 }
    const run = { ...main, saturated: true, threads: [thread(0.5), thread(0.95), thread(0.6), thread(0.7)] }
    expect(threadAdvice(run, 16)).toMatchObject({ threads: 4, needed: 8, busiest: 0.95 })
  })

  it('names segments when the machine has no room for the threads it needs', () => {
    const run = { ...thread(0.1), clientThreads: 1, saturated: true, cpuShareOfCore: 0.99 }
    const advice = threadAdvice(run, 2)!
    expect(advice).toMatchObject({ needed: 2, room: 1 })
    expect(threadAdviceLine(advice)).toContain(
      "it needs about 2 threads, more than the 1 this machine's cores leave: send it from several processes or machines with --segment i/n",
    )
  })

  it('says nothing when no thread was busy: more threads would not cure a pause', () => {
    const paused = { ...thread(0.2), clientThreads: 2, saturated: true, reasons: ['GC pause 140 ms'] }
    expect(threadAdvice({ ...paused, threads: [thread(0.2), thread(0.3)] }, 16)).toBeUndefined()
  })
})
