import { describe, expect, it } from 'vitest'
import { combineStats, type SimStats } from './sim-stats.ts'

const engine = (n: number, lag: { steps: number; maxMs: number; meanMs: number }): SimStats => ({
  requestsReceived: n,
  requestsFinished: n - 1,
  requestsAborted: 1,
  requestsByModel: { m: n, [`only-${n}`]: 1 },
  running: 2,
  waiting: 1,
  promptTokensTotal: 10 * n,
  generationTokensTotal: 64 * n,
  stepLag: { ...lag, recentMeanMs: lag.meanMs },
})

describe('combineStats', () => {
  it('sums the engines of a data-parallel simulator and keeps the worst step lag', () => {
    const total = combineStats([
      engine(3, { steps: 100, maxMs: 4, meanMs: 1 }),
      engine(5, { steps: 300, maxMs: 9, meanMs: 2 }),
    ])
    expect(total).toEqual({
      requestsReceived: 8,
      requestsFinished: 6,
      requestsAborted: 2,
      requestsByModel: { m: 8, 'only-3': 1, 'only-5': 1 },
      running: 4,
      waiting: 2,
      promptTokensTotal: 80,
      generationTokensTotal: 512,
      // The mean over all 400 steps; the worst engine's maximum and recent mean.
      stepLag: { steps: 400, maxMs: 9, meanMs: 1.75, recentMeanMs: 2 },
    })
  })

  it('is one engine unchanged', () => {
    const one = engine(3, { steps: 10, maxMs: 2, meanMs: 0.5 })
    expect(combineStats([one])).toEqual(one)
  })
})
