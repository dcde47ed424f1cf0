import { describe, expect, it } from 'vitest'
import { trafficLines } from './traffic-lines.ts'

describe('trafficLines', () => {
  it("prints Python's ramp-up lines instead of the request rate", () => {
    expect(
      trafficLines(
        {
          requestRate: Number.POSITIVE_INFINITY,
          burstiness: 1,
          maxConcurrency: 8,
          rampUp: { strategy: 'linear', startRps: 1, endRps: 20 },
        },
        false,
      ),
    ).toEqual([
      'Traffic ramp-up strategy: linear.',
      'Will increase RPS from 1 to 20 RPS over the duration of the benchmark.',
      'Burstiness factor: 1.0 (Poisson process)',
      'Maximum request concurrency: 8',
    ])
  })

  it('prints the rate, a Gamma burstiness and no concurrency as None', () => {
    expect(trafficLines({ requestRate: 10, burstiness: 0.5 }, false)).toEqual([
      'Traffic request rate: 10.0',
      'Burstiness factor: 0.5 (Gamma distribution)',
      'Maximum request concurrency: None',
    ])
    expect(trafficLines({ requestRate: 10, burstiness: Number.POSITIVE_INFINITY }, false)[1]).toBe(
      'Burstiness factor: inf (Gamma distribution)',
    )
  })

  it('prints only the self-timing line for a self-timed trace', () => {
    expect(trafficLines({ requestRate: Number.POSITIVE_INFINITY, burstiness: 1 }, true)).toEqual([
      'Self timing is set, using the timestamps from the trace file.',
    ])
  })
})
