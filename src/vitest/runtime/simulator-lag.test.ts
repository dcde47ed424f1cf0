import { describe, expect, it } from 'vitest'
import { meanStepLagMs, noteStepLag } from './simulator-lag.ts'

describe('the embedded simulator in the self-check', () => {
  it('takes the mean lag of the steps between two readings', () => {
    expect(meanStepLagMs({ sumS: 0.5, count: 1000 }, { sumS: 0.7, count: 1100 })).toBeCloseTo(2, 9)
    expect(meanStepLagMs({ sumS: 0.5, count: 1000 }, { sumS: 0.5, count: 1000 })).toBeUndefined()
  })

  it('marks the run saturated past 2 ms, with the reason, and only notes the lag below it', () => {
    const late = { client_health: { state: 'ok', saturated: false, reasons: [] } }
    noteStepLag(late, 2.84)
    expect(late.client_health).toEqual({
      state: 'saturated',
      saturated: true,
      remedy: 'a quieter machine',
      reasons: [
        'embedded simulator steps 2.8 ms late on average (limit 2 ms): this machine, not the server, set these latencies',
      ],
      simulator_step_lag_mean_ms: 2.84,
    })
    const fine = { client_health: { saturated: false, reasons: [] } }
    noteStepLag(fine, 1.2)
    expect(fine.client_health).toEqual({ saturated: false, reasons: [], simulator_step_lag_mean_ms: 1.2 })
  })

  it('leaves a run with no successful request unjudged', () => {
    const none = { client_health: { state: 'no-data', saturated: false, reasons: [] } }
    noteStepLag(none, 9)
    expect(none.client_health).toEqual({
      state: 'no-data',
      saturated: false,
      reasons: [],
      simulator_step_lag_mean_ms: 9,
    })
  })
})
