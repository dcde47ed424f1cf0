import { describe, expect } from 'vitest'
import { type MeasureRequests, measureRequests } from '../src/runner/measure.ts'
import type { PreparedRequests } from '../src/runner/prepare.ts'
import { runStages } from '../src/runner/run-benchmark.ts'
import { configFrom, smallRunFlags } from './faults/fault-helpers.ts'
import { test } from './helpers.ts'

describe('a run in stages', () => {
  test('a measure stage plugged in at the seam gets plain-data requests and its records become the result', async ({
    sim,
  }) => {
    const config = configFrom(
      smallRunFlags(sim.url, [
        '--num-prompts',
        '6',
        '--request-rate',
        '100',
        '--header',
        'X-Stage=sk-stage-secret',
      ]),
    )
    const seen: PreparedRequests[] = []
    // A stand-in for another way of sending: it sees the prepared plan, then sends as usual.
    const measure: MeasureRequests = async (plan, hooks) => {
      seen.push(plan)
      // What crosses to another thread must survive a structured clone.
      expect(structuredClone(plan.requests)).toEqual(plan.requests)
      const measured = await measureRequests(plan, hooks)
      // The stage after it takes the records as given.
      measured.records[0]!.error = 'leaked sk-stage-secret'
      measured.records[0]!.success = false
      return measured
    }
    const outcome = await runStages(config, {}, measure)

    expect(seen).toHaveLength(1)
    const plan = seen[0]!
    expect(plan.task).toBe('generation')
    expect(plan.openLoop).toBe(true)
    expect(plan.requests.map((r) => r.request.requestId)).toEqual(
      Array.from({ length: 6 }, (_, i) => `${config.request.requestIdPrefix}${i}`),
    )
    // Offsets follow the schedule: ascending from the first request.
    const offsets = plan.requests.map((r) => r.offsetS)
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b))
    expect(plan.requests[0]!.request).toMatchObject({ model: 'servebench/sim-model', outputLen: 8 })

    if (outcome.kind !== 'generation') throw new Error(`a ${outcome.kind} run`)
    expect(outcome.records).toHaveLength(6)
    expect(outcome.result.completed).toBe(5)
    expect(outcome.result.failed).toBe(1)
    // The one redaction pass runs over what the measure stage gave back.
    expect(outcome.result.errors[0]).toBe('leaked [redacted]')
    expect(outcome.records[0]!.error).toBe('leaked [redacted]')
    expect(outcome.result).toHaveProperty('mean_intended_ttft_ms')
  })
})
