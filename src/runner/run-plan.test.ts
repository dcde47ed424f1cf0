import { describe, expect, it } from 'vitest'
import type { BenchConfig, MultiTurnConfig } from '../config/bench-config.ts'
import { defaultBenchConfig } from '../config/defaults.ts'
import { planRun } from './run-plan.ts'

const MULTI_TURN: MultiTurnConfig = {
  numTurns: 2,
  minTurns: 2,
  maxTurns: 2,
  perTurnInputLen: 16,
  delayMs: 0,
  prefixGlobalRatio: 0,
  prefixConversationRatio: 0,
  continueOnFailure: false,
}

function config(patch: Partial<BenchConfig>): BenchConfig {
  return { ...defaultBenchConfig(), ...patch }
}

describe('planRun', () => {
  it('picks one run for a plain config, and for --num-runs 1', () => {
    expect(planRun(config({})).kind).toBe('single')
    expect(planRun(config({ numRuns: 1 })).kind).toBe('single')
  })

  it('picks --num-runs N with the count', () => {
    expect(planRun(config({ numRuns: 3 }))).toMatchObject({ kind: 'multi-run', numRuns: 3 })
  })

  it('picks a sweep before --num-runs, as Rust does', () => {
    const sweep = { parameter: 'request_rate' as const, values: [1, 2] }
    expect(planRun(config({ sweep, numRuns: 3 }))).toMatchObject({ kind: 'sweep', sweep, multiTurn: false })
  })

  it('picks multi-turn before everything, and a concurrency sweep of it', () => {
    const concurrency = { parameter: 'max_concurrency' as const, values: [1, 2] }
    const rate = { parameter: 'request_rate' as const, values: [1, 2] }
    expect(planRun(config({ multiTurn: MULTI_TURN, numRuns: 3 })).kind).toBe('multi-turn')
    expect(planRun(config({ multiTurn: MULTI_TURN, sweep: concurrency }))).toMatchObject({
      kind: 'sweep',
      multiTurn: true,
    })
    expect(planRun(config({ multiTurn: MULTI_TURN, sweep: rate })).kind).toBe('multi-turn')
  })

  it('keeps the config it was given', () => {
    const c = config({ numRuns: 2 })
    expect(planRun(c).config).toBe(c)
  })
})
