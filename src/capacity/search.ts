/**
 * The capacity search: the highest load at which every SLO holds, found by bracketing from the top
 * of the range and then narrowing the bracket between the highest load that passed and the lowest
 * that failed. Each probe is judged by the three-valued verdicts; an inconclusive probe gets more
 * requests (as many as its checks say would decide it, within the per-probe cap and the budget),
 * never a coin flip. Pure: the probes are run by the caller's `measure`.
 */
import type { Decision } from '../metrics/decide.ts'
import type { CapacityVary } from './capacity-result.ts'
import type { JudgedCheck } from './judge.ts'

/** The resolved search settings. */
export interface SearchSettings {
  vary: CapacityVary
  minLoad: number
  maxLoad: number
  /** Stop once every gap between probes inside the bracket is at most this relative width. */
  precision: number
  /** Requests of a probe's first round. */
  probeRequests: number
  /** Most requests at one load, its extensions included. */
  maxProbeRequests: number
  /** Most requests of the whole search. */
  budgetRequests: number
}

/** One probed load as its rounds so far judge it. */
export interface ProbeState {
  load: number
  verdict: Decision
  checks: JudgedCheck[]
  /** Requests measured at this load, every round together. */
  numRequests: number
  durationS: number
  /** Completed requests per second over the probe: what an overloaded server managed. */
  throughput: number
  /** Rounds measured at this load (1 when the first decided it). */
  rounds: number
}

/**
 * Runs `requests` more requests at `load` and judges every round at that load together;
 * `round` 0 starts the load afresh.
 */
export type MeasureProbe = (load: number, requests: number, round: number) => Promise<ProbeState>

/** Why the search stopped. */
export type SearchStop =
  | 'precision'
  | 'budget'
  | 'top-passes'
  | 'lowest-fails'
  | 'lowest-undecided'
  | 'no-gap'

export interface SearchOutcome {
  /** Each load in the order it was first probed, as its last round left it. */
  probes: ProbeState[]
  totalRequests: number
  stop: SearchStop
}

/** The search itself; `measure` runs and judges the probes. */
export async function searchCapacity(
  settings: SearchSettings,
  measure: MeasureProbe,
  onProbe?: (state: ProbeState, index: number) => void,
): Promise<SearchOutcome> {
  const probes: ProbeState[] = []
  let used = 0
  const probeAt = async (load: number): Promise<ProbeState | undefined> => {
    const left = settings.budgetRequests - used
    if (left < Math.min(settings.probeRequests, settings.maxProbeRequests)) return undefined
    let state = await measure(load, settings.probeRequests, 0)
    used += state.numRequests
    for (let round = 1; state.verdict === 'inconclusive'; round++) {
      const needed = Math.max(
        ...state.checks.filter((c) => c.verdict === 'inconclusive').map((c) => c.needed_requests ?? Infinity),
      )
      // A check no number of requests within the cap would decide stays inconclusive at once.
      if (!Number.isFinite(needed) || needed > settings.maxProbeRequests) break
      const more = Math.min(
        Math.max(needed - state.numRequests, Math.ceil(settings.probeRequests / 2)),
        settings.maxProbeRequests - state.numRequests,
        settings.budgetRequests - used,
      )
      if (!(more >= 1)) break
      const before = state.numRequests
      state = await measure(load, more, round)
      used += state.numRequests - before
    }
    probes.push(state)
    onProbe?.(state, probes.length - 1)
    return state
  }

  // Bracket from the top: an overloaded probe fails with few requests, and for request rates its
  // throughput says where the server saturates, below which the capacity lies.
  let load = settings.maxLoad
  for (;;) {
    const state = await probeAt(load)
    if (!state) return { probes, totalRequests: used, stop: 'budget' }
    if (state.verdict === 'pass') break
    if (load <= settings.minLoad)
      return {
        probes,
        totalRequests: used,
        stop: state.verdict === 'fail' ? 'lowest-fails' : 'lowest-undecided',
      }
    let next = load / 2
    if (settings.vary === 'request-rate' && state.verdict === 'fail' && state.throughput > 0)
      next = Math.min(next, state.throughput)
    load = roundLoad(Math.max(settings.minLoad, next), settings.vary)
    if (load >= state.load) load = roundLoad(state.load - 1, settings.vary)
    if (load < settings.minLoad) load = settings.minLoad
  }
  if (probes.length === 1) return { probes, totalRequests: used, stop: 'top-passes' }

  // Narrow the bracket: probe inside its widest useful gap, at the crossing the probes' margins
  // point to, kept away from the gap's ends so each probe shrinks it.
  for (;;) {
    const bracket = bracketOf(probes)
    if (!bracket.fail || !bracket.pass) return { probes, totalRequests: used, stop: 'precision' }
    const inside = probes
      .filter((p) => p.load >= bracket.pass!.load && p.load <= bracket.fail!.load)
      .sort((a, b) => a.load - b.load)
    const gaps: Array<[ProbeState, ProbeState]> = []
    for (let i = 1; i < inside.length; i++) {
      const a = inside[i - 1]!
      const b = inside[i]!
      if (isWide(a.load, b.load, settings)) gaps.push([a, b])
    }
    if (gaps.length === 0) return { probes, totalRequests: used, stop: 'precision' }
    const crossing = crossingOf(inside)
    const [a, b] =
      gaps.find(([lo, hi]) => crossing !== undefined && crossing > lo.load && crossing < hi.load) ??
      gaps.reduce((w, g) => (g[1].load / g[0].load > w[1].load / w[0].load ? g : w))
    let target: number
    // A wide gap (after a jump down to the throughput) is first doubled upward from its pass.
    if (b.load / a.load > 2) target = a.load * 2
    else {
      const guess =
        crossing !== undefined && crossing > a.load && crossing < b.load ? crossing : (a.load + b.load) / 2
      target = Math.min(Math.max(guess, a.load + 0.2 * (b.load - a.load)), b.load - 0.2 * (b.load - a.load))
    }
    target = roundLoad(target, settings.vary)
    if (target <= a.load || target >= b.load) return { probes, totalRequests: used, stop: 'no-gap' }
    const state = await probeAt(target)
    if (!state) return { probes, totalRequests: used, stop: 'budget' }
  }
}

/**
 * The bracket of a set of probes: the lowest load that failed, and the highest that passed below
 * it (a pass above a fail is noise the answer does not trust).
 */
export function bracketOf(probes: readonly ProbeState[]): { pass?: ProbeState; fail?: ProbeState } {
  const fail = probes
    .filter((p) => p.verdict === 'fail')
    .reduce<ProbeState | undefined>((low, p) => (low === undefined || p.load < low.load ? p : low), undefined)
  const pass = probes
    .filter((p) => p.verdict === 'pass' && (fail === undefined || p.load < fail.load))
    .reduce<ProbeState | undefined>(
      (high, p) => (high === undefined || p.load > high.load ? p : high),
      undefined,
    )
  return { ...(pass ? { pass } : {}), ...(fail ? { fail } : {}) }
}

/**
 * How far a probe is past its SLOs: the worst check's point estimate against its bound, as a signed
 * log of the relative excess (0 at the bound, positive past it), so an overloaded probe's seconds of
 * latency do not swamp the interpolation.
 */
export function marginOf(state: Pick<ProbeState, 'checks'>): number {
  let worst = Number.NEGATIVE_INFINITY
  for (const c of state.checks) {
    // goodput is the one lower bound; every other SLO is an upper one.
    const kind = c.slo.startsWith('goodput:') ? 'min' : 'max'
    const bound = Number(c.slo.slice(c.slo.lastIndexOf(':') + 1))
    let d: number
    if (!Number.isFinite(c.estimate)) d = kind === 'max' ? 1e6 : -1
    else if (bound === 0) d = c.estimate > 0 ? (kind === 'max' ? 1 : -1) : kind === 'max' ? -1 : 1
    else d = kind === 'max' ? (c.estimate - bound) / bound : (bound - c.estimate) / bound
    worst = Math.max(worst, Math.sign(d) * Math.log1p(Math.abs(d)))
  }
  return worst
}

/**
 * Where the probes' margins cross zero: linear between the last probe (by load) at or under its
 * bounds and the next one past them; undefined when they do not cross.
 */
export function crossingOf(sorted: readonly ProbeState[]): number | undefined {
  const margins = sorted.map((p) => marginOf(p))
  for (let i = 1; i < sorted.length; i++) {
    const m0 = margins[i - 1]!
    const m1 = margins[i]!
    if (m0 <= 0 && m1 > 0) {
      const x0 = sorted[i - 1]!.load
      const x1 = sorted[i]!.load
      return m1 === m0 ? (x0 + x1) / 2 : x0 + ((x1 - x0) * (0 - m0)) / (m1 - m0)
    }
  }
  return undefined
}

function isWide(a: number, b: number, settings: SearchSettings): boolean {
  if (settings.vary === 'max-concurrency') return b - a > 1 && b / a - 1 > settings.precision
  return b / a - 1 > settings.precision
}

/** Concurrency is a whole number; a request rate keeps three significant digits. */
export function roundLoad(load: number, vary: CapacityVary): number {
  if (vary === 'max-concurrency') return Math.max(1, Math.round(load))
  return Number(load.toPrecision(3))
}
