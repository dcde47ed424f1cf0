import { describe, expect, it } from 'vitest'
import { loopDelayPercentiles } from './loop-delay.ts'

describe('loopDelayPercentiles', () => {
  // 1 s of 2 ms ticks: 480 on time, one after a 17 ms stall (which swallowed 8 more).
  const stalled: Array<[number, number]> = [
    [0.2, 480],
    [17, 1],
  ]

  it('counts the ticks a stall swallowed back in, each with the delay it would have seen', () => {
    const weighed = loopDelayPercentiles(stalled, 2)
    // 480 + 1 + 8 samples (15, 13, …, 1 ms): the p99 falls inside the stall.
    expect(weighed.p99).toBe(9)
    expect(weighed.max).toBe(17)
    expect(weighed.p50).toBe(0.2)
    // One tick among 481 does not reach the p99 without them.
    expect(loopDelayPercentiles(stalled, Number.POSITIVE_INFINITY).p99).toBe(0.2)
  })

  it('caps the counted-back delays at the reading scale: chunks read together are off by a gap', () => {
    // Against 2 ms gaps the swallowed ticks count as 2 ms: the stall is one gap off by 17 ms.
    expect(loopDelayPercentiles(stalled, 2, 2).p99).toBe(2)
    // A 35 ms scale keeps them whole.
    expect(loopDelayPercentiles(stalled, 2, 35).p99).toBe(9)
  })

  it('is zero without ticks', () => {
    expect(loopDelayPercentiles([], 2)).toEqual({ p50: 0, p99: 0, max: 0 })
  })
})
