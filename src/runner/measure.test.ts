import { describe, expect, it } from 'vitest'
import { defaultBenchConfig } from '../config/defaults.ts'
import { measureOnClientThreads, measureRequests, measureStageOf } from './measure.ts'
import { autoClientThreads } from './threads/client-threads.ts'

describe('measureStageOf', () => {
  it('sends from this thread unless --client-threads asks for more than one', () => {
    const stageOf = (clientThreads?: number | 'auto') =>
      measureStageOf({ ...defaultBenchConfig(), ...(clientThreads !== undefined ? { clientThreads } : {}) })
    expect(stageOf()).toBe(measureRequests)
    expect(stageOf(1)).toBe(measureRequests)
    expect(stageOf(2)).toBe(measureOnClientThreads)
    expect(stageOf('auto')).toBe(autoClientThreads() > 1 ? measureOnClientThreads : measureRequests)
  })
})
