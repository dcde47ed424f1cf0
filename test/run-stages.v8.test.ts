import { describe, expect } from 'vitest'
import { measureRequests } from '../src/runner/measure.ts'
import { runStages } from '../src/runner/run-benchmark.ts'
import { configFrom, smallRunFlags } from './faults/fault-helpers.ts'
import { test } from './helpers.ts'
import { hiddenClassCount } from './hidden-class.ts'

describe('a run in stages', () => {
  test("a run's records share their hidden classes, as do the requests handed to the backend", async ({
    sim,
  }) => {
    const config = configFrom(smallRunFlags(sim.url, ['--num-prompts', '24', '--max-concurrency', '4']))
    const sentRequests: object[] = []
    const outcome = await runStages(config, {}, (plan, hooks) =>
      measureRequests(
        {
          ...plan,
          backend: {
            ...plan.backend,
            send: (request, client) => {
              sentRequests.push(request)
              return plan.backend.send(request, client)
            },
          },
        },
        hooks,
      ),
    )
    expect(outcome.records.filter((r) => r.success)).toHaveLength(24)
    expect(sentRequests).toHaveLength(24)
    // One class per object is what an object spread followed by more fields gives on Node 20; a
    // field V8 widens once (a first 0 queue time, then fractions) may leave a second.
    expect(hiddenClassCount(outcome.records)).toBeLessThanOrEqual(2)
    expect(hiddenClassCount(sentRequests)).toBeLessThanOrEqual(2)
  })
})
