import { describe, expect, it } from 'vitest'
import { assertTimelineOption } from './plugin.ts'
import { assertKeepRuns } from './reporter.ts'

describe('the timeline option', () => {
  it('takes true, false or two ascending ITL thresholds', () => {
    expect(() => assertTimelineOption(true)).not.toThrow()
    expect(() => assertTimelineOption({ itlThresholdsMs: [10, 40] })).not.toThrow()
    expect(() => assertTimelineOption({ itlThresholdsMs: [50, 25] })).toThrow(
      new TypeError(
        'servebench({ timeline }) must be true, false or { itlThresholdsMs: [low, high] } with 0 < low < high in ms, such as [25, 50] (got {"itlThresholdsMs":[50,25]})',
      ),
    )
    expect(() => assertTimelineOption('yes')).toThrow(TypeError)
  })
})

describe('the keepRuns option', () => {
  it('refuses a keepRuns that is not a whole number of at least 1', () => {
    expect(() => assertKeepRuns(0)).toThrow(
      new TypeError(
        'servebench({ reporters: { keepRuns } }) must be a whole number of run folders to keep, at least 1, or Infinity (got 0)',
      ),
    )
    expect(() => assertKeepRuns(2.5)).toThrow(TypeError)
    expect(() => assertKeepRuns(Number.POSITIVE_INFINITY)).not.toThrow()
  })
})
