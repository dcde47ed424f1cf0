import { describe, expect, it } from 'vitest'
import type { VerdictCheck } from '../shared/meta.ts'
import { planExtension, type UndecidedCheck, undecidableNote } from './undecidable.ts'

const check = (metric: string): VerdictCheck => ({
  metric,
  actual: 120,
  limit: 300,
  unit: 'ms',
  pass: true,
  verdict: 'inconclusive',
})
const undecided = (
  matcher: UndecidedCheck['matcher'],
  metric: string,
  neededRequests: number,
): UndecidedCheck => ({
  matcher,
  check: check(metric),
  neededRequests,
})

describe('planExtension', () => {
  // The case that left every check undecided: one check beyond any budget blocked the others.
  const probe = [
    undecided('toMatchBaseline', 'p99 TTFT', 85_831),
    undecided('toMeetSLO', 'p99 TTFT', 368),
    undecided('toMatchBaseline', 'output throughput', 285),
  ]

  it('serves every check the budget can reach and sets aside the one it cannot', () => {
    const plan = planExtension(probe, 2_000, new Set())
    expect(plan.served).toBe(2)
    expect(plan.neededRequests).toBe(368)
    expect(plan.setAside.map((s) => s.key)).toEqual(['toMatchBaseline p99 TTFT'])
  })

  it('says a set-aside check once: later rounds skip it', () => {
    const plan = planExtension(probe, 2_000, new Set(['toMatchBaseline p99 TTFT']))
    expect(plan.setAside).toEqual([])
    expect(plan.served).toBe(2)
  })

  it('serves nothing when no check is in reach', () => {
    const plan = planExtension(
      [undecided('toMeetSLO', 'p99.9 TTFT', Number.POSITIVE_INFINITY)],
      2_000,
      new Set(),
    )
    expect(plan.served).toBe(0)
    expect(plan.setAside).toHaveLength(1)
  })
})

describe('undecidableNote', () => {
  it('names the check, what would decide it and what to change', () => {
    expect(undecidableNote(undecided('toMatchBaseline', 'p99 TTFT', 85_830.2), 2_000)).toBe(
      'p99 TTFT (toMatchBaseline) cannot be decided within the budget (2,000 requests in all): about 85,831 would decide it; ' +
        'it is left inconclusive. To decide it, try the mean or p90 instead of p99, a wider tolerance or more requests (verdicts.budget.requests)',
    )
    expect(undecidableNote(undecided('toMeetSLO', 'mean TTFT', Number.POSITIVE_INFINITY), 24)).toBe(
      'mean TTFT (toMeetSLO) cannot be decided within the budget (24 requests in all): no number of requests would decide it ' +
        '(the estimate sits on the limit); it is left inconclusive. To decide it, try a bound further from the estimate',
    )
  })

  it('blames the spread between the baseline runs when that is what keeps a comparison open', () => {
    const spreadOut: UndecidedCheck = {
      matcher: 'toMatchBaseline',
      check: { ...check('mean TTFT'), runSpread: [-0.081, 0.112] },
      neededRequests: Number.POSITIVE_INFINITY,
    }
    expect(undecidableNote(spreadOut, 288)).toBe(
      'mean TTFT (toMatchBaseline) cannot be decided within the budget (288 requests in all): no number of requests would ' +
        "decide it (the baseline's runs differ from one another by -8.1% to +11.2%); it is left inconclusive. " +
        'To decide it, try a wider tolerance or a baseline recorded on a quieter machine',
    )
  })
})
