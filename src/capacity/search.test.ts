import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { EXAMPLE_ANSWER } from '../../test/capacity-answers.ts'
import { decideBound } from '../metrics/decide.ts'
import { capacityAnswer, formatCapacityLine, formatDuration, saturatedDecidingLoads } from './answer.ts'
import type { CapacityProbe, CapacityVary } from './capacity-result.ts'
import { type MeasureProbe, type ProbeState, type SearchSettings, searchCapacity } from './search.ts'

const BOUND = 500

/**
 * A deterministic server: the SLO's statistic is `BOUND · (load / capacity)³`, known to ±`width` /
 * √n (relative), judged by decideBound as the real checks are; past 1.5 × capacity it saturates at
 * 1.5 × capacity req/s. Records every call.
 */
function fakeServer(
  capacity: number,
  width = 2,
): { measure: MeasureProbe; calls: Array<[number, number, number]> } {
  const sizes = new Map<number, number>()
  const calls: Array<[number, number, number]> = []
  const measure: MeasureProbe = async (load, requests, round) => {
    calls.push([load, requests, round])
    const n = (round === 0 ? 0 : (sizes.get(load) ?? 0)) + requests
    sizes.set(load, n)
    const estimate = BOUND * (load / capacity) ** 3
    const half = (estimate * width) / Math.sqrt(n)
    const d = decideBound({
      estimate,
      lower: estimate - half,
      upper: estimate + half,
      limit: BOUND,
      kind: 'max',
      n,
    })
    const state: ProbeState = {
      load,
      verdict: d.verdict,
      checks: [
        {
          slo: `p99_ttft_ms:${BOUND}`,
          verdict: d.verdict,
          estimate,
          lower: estimate - half,
          upper: estimate + half,
          ...(d.neededRequests !== undefined ? { needed_requests: d.neededRequests } : {}),
        },
      ],
      numRequests: n,
      durationS: n / load,
      throughput: Math.min(load, capacity * 1.5),
      rounds: 1,
    }
    return state
  }
  return { measure, calls }
}

function settings(over: Partial<SearchSettings> = {}): SearchSettings {
  return {
    vary: 'request-rate',
    minLoad: 1,
    maxLoad: 1000,
    precision: 0.05,
    probeRequests: 300,
    maxProbeRequests: 1500,
    budgetRequests: 6000,
    ...over,
  }
}

describe('searchCapacity', () => {
  it('brackets from the top, then narrows to the precision around the true capacity', async () => {
    const { measure } = fakeServer(14.2)
    const outcome = await searchCapacity(settings(), measure)
    const answer = capacityAnswer(outcome, 'request-rate', 0.95)
    expect(outcome.stop).toBe('precision')
    expect(outcome.probes[0]!.load).toBe(1000)
    // The second probe jumps to what the overloaded server managed, not to 500.
    expect(outcome.probes[1]!.load).toBeCloseTo(21.3, 5)
    expect(answer.lower!).toBeLessThanOrEqual(14.2)
    expect(answer.upper!).toBeGreaterThanOrEqual(14.2)
    expect(answer.value!).toBeGreaterThanOrEqual(answer.lower!)
    expect(answer.value!).toBeLessThanOrEqual(answer.upper!)
    expect(Math.abs(answer.value! - 14.2) / 14.2).toBeLessThan(0.05)
    expect(answer.binding_slo).toBe('p99_ttft_ms:500')
    expect(outcome.totalRequests).toBeLessThanOrEqual(6000)
  })

  it('extends an inconclusive probe by the requests its check needs, within the per-probe cap', async () => {
    const { measure, calls } = fakeServer(14.2, 6)
    const outcome = await searchCapacity(settings(), measure)
    const extended = calls.filter(([, , round]) => round > 0)
    expect(extended.length).toBeGreaterThan(0)
    for (const probe of outcome.probes) expect(probe.numRequests).toBeLessThanOrEqual(1500)
    // An extension continues the load it extends.
    for (const [load, , round] of extended) {
      const before = calls[calls.findIndex((c) => c[0] === load && c[2] === round) - 1]!
      expect(before[0]).toBe(load)
    }
  })

  it('stops at --min-load with no capacity when even the lowest load fails', async () => {
    const { measure } = fakeServer(0.5)
    const outcome = await searchCapacity(settings({ minLoad: 1 }), measure)
    expect(outcome.stop).toBe('lowest-fails')
    expect(outcome.probes.at(-1)!.load).toBe(1)
    const answer = capacityAnswer(outcome, 'request-rate', 0.95)
    expect(answer).toMatchObject({ value: null, lower: null, upper: 1, binding_slo: 'p99_ttft_ms:500' })
  })

  it('says the top of the range holds when the first probe passes', async () => {
    const { measure } = fakeServer(5000)
    const outcome = await searchCapacity(settings(), measure)
    expect(outcome.stop).toBe('top-passes')
    expect(capacityAnswer(outcome, 'request-rate', 0.95)).toMatchObject({
      value: 1000,
      lower: 1000,
      upper: null,
    })
  })

  it('stops when the budget cannot pay for another probe, and never spends past it', async () => {
    const { measure } = fakeServer(14.2, 6)
    const outcome = await searchCapacity(settings({ budgetRequests: 1000 }), measure)
    expect(outcome.stop).toBe('budget')
    expect(outcome.totalRequests).toBeLessThanOrEqual(1000)
  })

  it('probes whole concurrencies and reports a whole capacity', async () => {
    const { measure } = fakeServer(37.6)
    const outcome = await searchCapacity(settings({ vary: 'max-concurrency', maxLoad: 256 }), measure)
    for (const p of outcome.probes) expect(Number.isInteger(p.load)).toBe(true)
    const answer = capacityAnswer(outcome, 'max-concurrency', 0.95)
    expect(Number.isInteger(answer.value)).toBe(true)
    expect(answer.lower!).toBeLessThanOrEqual(37.6)
    expect(answer.upper!).toBeGreaterThanOrEqual(37.6)
  })

  it('holds the true capacity within its interval and is repeatable, for any capacity in range', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 2, max: 900, noNaN: true }),
        fc.constantFrom<CapacityVary>('request-rate', 'max-concurrency'),
        async (capacity, vary) => {
          const s = settings({ vary, maxLoad: 1000, budgetRequests: 20_000 })
          const first = await searchCapacity(s, fakeServer(capacity).measure)
          const again = await searchCapacity(s, fakeServer(capacity).measure)
          expect(again.probes.map((p) => p.load)).toEqual(first.probes.map((p) => p.load))
          const answer = capacityAnswer(first, vary, 0.95)
          expect(answer.lower!).toBeLessThanOrEqual(capacity)
          if (answer.upper !== null) expect(answer.upper).toBeGreaterThanOrEqual(capacity)
        },
      ),
      { numRuns: 60 },
    )
  })
})

describe('formatCapacityLine', () => {
  const slos = [{ metric: 'p99_ttft_ms', bound: 500, kind: 'max' as const }]
  it('writes one actionable line', () => {
    const line = formatCapacityLine({
      answer: EXAMPLE_ANSWER,
      slos,
      probed: 7,
      totalRequests: 2310,
      durationS: 192,
    })
    expect(line).toBe(
      'capacity 14.2 req/s (95% interval 13.1–15); binding SLO: p99 TTFT ≤ 500 ms; 7 loads probed, 2,310 requests, 3 min 12 s',
    )
  })

  it('names the lowest load and the SLO it breaks when there is no capacity', () => {
    const line = formatCapacityLine({
      answer: {
        value: null,
        lower: null,
        upper: 1,
        vary: 'request-rate',
        unit: 'req/s',
        binding_slo: 'p99_ttft_ms:500',
        confidence: 0.95,
      },
      slos,
      probed: 9,
      totalRequests: 2700,
      durationS: 45,
      lowestLoad: 1,
    })
    expect(line).toBe(
      'no capacity: even 1 req/s breaks p99 TTFT ≤ 500 ms; 9 loads probed, 2,700 requests, 45 s',
    )
  })

  it('formats durations', () => {
    expect([formatDuration(4.6), formatDuration(192), formatDuration(3720)]).toEqual([
      '5 s',
      '3 min 12 s',
      '1 h 2 min',
    ])
  })
})

describe('saturatedDecidingLoads', () => {
  const probe = (load: number, saturated: boolean): CapacityProbe => ({
    load,
    verdict: 'pass',
    num_requests: 100,
    duration_s: 5,
    checks: [],
    result: {},
    ...(saturated ? { client_saturated: true } : {}),
  })

  it('names a saturated client only at the loads that decided the answer', () => {
    const probes = [probe(32, true), probe(13.1, false), probe(15, true), probe(14, true)]
    expect(saturatedDecidingLoads({ capacity: EXAMPLE_ANSWER, probes })).toEqual([15])
    const clean = probes.map((p) => (p.load === 15 ? probe(15, false) : p))
    expect(saturatedDecidingLoads({ capacity: EXAMPLE_ANSWER, probes: clean })).toEqual([])
  })

  it('names the lowest load when nothing held there', () => {
    const none = { ...EXAMPLE_ANSWER, value: null, lower: null, upper: 1 }
    expect(saturatedDecidingLoads({ capacity: none, probes: [probe(1, true), probe(8, true)] })).toEqual([1])
  })
})
