import { describe, expect, it } from 'vitest'
import { defaultBenchConfig } from '../config/defaults.ts'
import { measureOnClientThreads, measureRequests, measureStageOf } from './measure.ts'

describe('measureStageOf', () => {
  it('sends from this thread only with --client-threads 1; auto and N go through the client threads', () => {
    const stageOf = (clientThreads?: number | 'auto') =>
      measureStageOf({ ...defaultBenchConfig(), ...(clientThreads !== undefined ? { clientThreads } : {}) })
    expect(stageOf(1)).toBe(measureRequests)
    // The client threads' stage sends from this thread when `auto` chose one (no threads started).
    expect(stageOf()).toBe(measureOnClientThreads)
    expect(stageOf('auto')).toBe(measureOnClientThreads)
    expect(stageOf(2)).toBe(measureOnClientThreads)
  })
})
