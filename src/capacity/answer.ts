/**
 * The answer of a capacity search and its one line. The interval is the bracket the verdicts
 * decided: its lower end is the highest load that passed (every SLO's interval within its bound),
 * its upper end the lowest load that failed (one SLO's interval past its bound), each a verdict at
 * the search's confidence. The value is where the probes' point estimates cross the binding bound,
 * linear between the probes around it, inside that interval. Pure.
 */
import type { GoodputConfig } from '../config/bench-config.ts'
import type { CapacityAnswer, CapacityResultFile, CapacitySlo, CapacityVary } from './capacity-result.ts'
import { bracketOf, crossingOf, marginOf, type ProbeState, type SearchOutcome } from './search.ts'
import { sloLabel } from './slo.ts'

/** The unit of each varied load, as the answer writes it. */
export const CAPACITY_UNITS: Readonly<Record<CapacityVary, string>> = {
  'request-rate': 'req/s',
  'max-concurrency': 'concurrency',
}

/** The answer of a finished search. */
export function capacityAnswer(
  outcome: Pick<SearchOutcome, 'probes'>,
  vary: CapacityVary,
  confidence: number,
): CapacityAnswer {
  const { pass, fail } = bracketOf(outcome.probes)
  const base = { vary, unit: CAPACITY_UNITS[vary], confidence }
  if (!pass) {
    const lowest = [...outcome.probes].sort((a, b) => a.load - b.load)[0]
    return {
      ...base,
      value: null,
      lower: null,
      upper: lowest && lowest.verdict === 'fail' ? lowest.load : null,
      binding_slo: lowest ? bindingOf(lowest) : null,
    }
  }
  if (!fail) return { ...base, value: pass.load, lower: pass.load, upper: null, binding_slo: null }
  const inside = outcome.probes
    .filter((p) => p.load >= pass.load && p.load <= fail.load)
    .sort((a, b) => a.load - b.load)
  const crossing = crossingOf(inside) ?? pass.load
  let value = Math.min(Math.max(crossing, pass.load), fail.load)
  value = vary === 'max-concurrency' ? Math.max(pass.load, Math.floor(value)) : Number(value.toPrecision(3))
  return { ...base, value, lower: pass.load, upper: fail.load, binding_slo: bindingOf(fail) }
}

/** The SLO a failing (or lowest) probe is furthest past; null when none failed there. */
function bindingOf(probe: ProbeState): string | null {
  let best: { slo: string; margin: number } | undefined
  for (const check of probe.checks) {
    if (check.verdict === 'pass') continue
    const margin = marginOf({ checks: [check] })
    if (!best || margin > best.margin) best = { slo: check.slo, margin }
  }
  return best?.slo ?? null
}

/** What the line needs beyond the answer. */
export interface CapacityLineInput {
  answer: CapacityAnswer
  slos: readonly CapacitySlo[]
  goodput?: GoodputConfig
  probed: number
  totalRequests: number
  durationS: number
  /** The lowest load probed, for the line of a search that found no capacity. */
  lowestLoad?: number
  /** The lowest probe stayed inconclusive within the per-probe cap. */
  undecided?: boolean
}

/**
 * `capacity 14.2 req/s (95% interval 13.1–15.0); binding SLO: p99 TTFT ≤ 500 ms; 7 loads probed,
 * 2,310 requests, 3 min 12 s`.
 */
export function formatCapacityLine(input: CapacityLineInput): string {
  const { answer } = input
  const unit = answer.vary === 'request-rate' ? ' req/s' : ' concurrent requests'
  const tail = `${input.probed} load${input.probed === 1 ? '' : 's'} probed, ${input.totalRequests.toLocaleString('en-US')} requests, ${formatDuration(input.durationS)}`
  const label = (slo: string | null): string => {
    const found = input.slos.find((s) => `${s.metric}:${s.bound}` === slo)
    return found ? sloLabel(found, input.goodput) : (slo ?? 'none')
  }
  const pct = `${Math.round(answer.confidence * 100)}%`
  if (answer.value === null) {
    const lowest = input.lowestLoad !== undefined ? `${num(input.lowestLoad)}${unit}` : 'the lowest load'
    if (input.undecided)
      return `no capacity found: at ${lowest} the SLOs stayed inconclusive within the probe's request cap (raise --max-probe-requests or lower --min-load); ${tail}`
    return `no capacity: even ${lowest} breaks ${label(answer.binding_slo)}; ${tail}`
  }
  if (answer.upper === null)
    return `capacity ≥ ${num(answer.value)}${unit} (the top of the search range: every SLO holds there; raise --max-load); ${tail}`
  return `capacity ${num(answer.value)}${unit} (${pct} interval ${num(answer.lower!)}–${num(answer.upper)}); binding SLO: ${label(answer.binding_slo)}; ${tail}`
}

/** `3 min 12 s`, `45 s`, `1 h 2 min`. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds)
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}

function num(x: number): string {
  return Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(3)))
}

/**
 * The loads that decided the answer (the interval's ends, or the lowest load when nothing held)
 * at which the client self-check found the client saturated: there the latencies measure the
 * client, so the answer may be the client's capacity rather than the server's. A saturated probe
 * elsewhere only warns.
 */
export function saturatedDecidingLoads(file: Pick<CapacityResultFile, 'capacity' | 'probes'>): number[] {
  const { lower, upper } = file.capacity
  const deciding = new Set([lower, upper].filter((x): x is number => x !== null))
  return file.probes.filter((p) => p.client_saturated && deciding.has(p.load)).map((p) => p.load)
}
