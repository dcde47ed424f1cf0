import { describe, expect, it } from 'vitest'
import { hiddenClassCount } from '../../test/hidden-class.ts'
import { requestOutput } from '../../test/request-outputs.ts'
import { dispatch } from './dispatcher.ts'

// In the `v8` project: a fresh process per file, so V8's shared transition trees hold only what
// this file made (docs/design.md, "Tests").

describe("dispatch's results", () => {
  it('share their hidden classes, so the metrics that read them stay monomorphic', async () => {
    const outcome = await dispatch(
      Array.from({ length: 40 }, (_, i) => ({ offsetS: 0, payload: i })),
      async (i) => ({ ...requestOutput(), startTimeS: i + 0.5, ttftS: 0.05 + i / 1000, itlS: [0.02, 0.021] }),
      { maxConcurrency: 8 },
    )
    expect(outcome.results).toHaveLength(40)
    // Not one class per result, as an object spread followed by more fields gives on Node 20. Two
    // at most: `queueTimeS` is 0 for a request that did not wait and a fraction for one that did,
    // and V8 widens the field once, leaving the results made before on the earlier class.
    expect(hiddenClassCount(outcome.results)).toBeLessThanOrEqual(2)
  })
})
