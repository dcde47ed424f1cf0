/**
 * The search options of a capacity search, their defaults and their checks: one set for the
 * `servebench capacity` flags and the `search` option of `serveBench.capacity`. Pure.
 */
import type { ConfigIssue } from '../errors.ts'
import type { CapacityVary } from './capacity-result.ts'
import type { SearchSettings } from './search.ts'

/**
 * How a capacity search runs. Each field is optional; see docs/capacity.md.
 * @experimental
 */
export interface CapacitySearchOptions {
  /** What the search varies: the request rate (req/s, Poisson arrivals) or the concurrency (closed loop). @default 'request-rate' */
  vary?: CapacityVary
  /** The lowest load probed: below it the search reports no capacity. @default 1 */
  minLoad?: number
  /** The first load probed, the top of the range. @default 1000 (request-rate), 256 (max-concurrency) */
  maxLoad?: number
  /** Stop once the probes around the answer are at most this far apart, relative (0.05 = 5 %). @default 0.05 */
  precision?: number
  /** Requests of a probe's first round. @default 300 */
  probeRequests?: number
  /** Most requests at one load, its extensions included. @default 5 × probeRequests */
  maxProbeRequests?: number
  /** Most requests of the whole search. @default 20 × probeRequests */
  budgetRequests?: number
  /** Confidence level of every verdict, and so of the answer's interval. @default 0.95 */
  confidence?: number
}

/** The resolved options: every field set. */
export interface ResolvedCapacitySearch extends SearchSettings {
  confidence: number
}

export const CAPACITY_VARIES: readonly CapacityVary[] = ['request-rate', 'max-concurrency']

/** serve flags the search sets itself, or that make a run that is not one probe. */
const SET_BY_THE_SEARCH: Readonly<Record<string, string>> = {
  '--num-prompts': 'the search sizes each probe: use --probe-requests and --budget-requests',
  '--num-runs': 'a capacity search runs its own probes',
  '--sweep-max-concurrency': 'a capacity search chooses its own loads (--vary max-concurrency)',
  '--sweep-request-rate': 'a capacity search chooses its own loads (--vary request-rate)',
  '--ramp-up-strategy': 'each probe holds one load',
  '--multi-turn': 'a capacity search probes independent requests',
  '--segment': 'a capacity search runs from one process',
  '--append-result': 'the capacity result is one file',
  '--save-detailed': "each probe's result is saved without per-request arrays",
  '--plot-timeline': 'a capacity search has many runs; use servebench report on its result',
  '--plot-dataset-stats': 'a capacity search has many runs',
  '--compare': 'compare saved results with servebench compare',
}

/**
 * The serve flags a capacity search refuses, given as flags (`servebench capacity`) or as the DSL
 * options of `serveBench.capacity` turned into flags: those it sets itself (the size of a probe,
 * the varied load) and those that make a run that is not one probe. `door` names what they are not.
 */
export function refusedServeFlags(
  flags: { has(name: string): boolean },
  vary: CapacityVary | undefined,
  door: string,
): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  for (const [name, why] of Object.entries(SET_BY_THE_SEARCH))
    if (flags.has(name)) issues.push({ path: name, message: `is not a ${door}: ${why}` })
  const varied = vary === 'max-concurrency' ? '--max-concurrency' : '--request-rate'
  if (flags.has(varied))
    issues.push({
      path: varied,
      message: `is what the search varies (--vary ${vary ?? 'request-rate'}); set its range with --min-load and --max-load`,
    })
  return issues
}

export const DEFAULT_CAPACITY_SEARCH = {
  vary: 'request-rate' as CapacityVary,
  minLoad: 1,
  maxLoad: { 'request-rate': 1000, 'max-concurrency': 256 } as Readonly<Record<CapacityVary, number>>,
  precision: 0.05,
  probeRequests: 300,
  maxProbeRequestsFactor: 5,
  budgetRequestsFactor: 20,
  confidence: 0.95,
} as const

/**
 * Checks and completes the options; `path(field)` names a field as the caller's user wrote it
 * (`--max-load`, `serveBench.capacity('x').search.maxLoad`). Problems are appended to `issues`.
 */
export function resolveCapacitySearch(
  options: CapacitySearchOptions,
  path: (field: keyof CapacitySearchOptions) => string,
  issues: ConfigIssue[],
): ResolvedCapacitySearch {
  const d = DEFAULT_CAPACITY_SEARCH
  const vary = options.vary ?? d.vary
  if (!CAPACITY_VARIES.includes(vary))
    issues.push({
      path: path('vary'),
      message: `must be one of ${CAPACITY_VARIES.join(', ')} (got "${String(vary)}")`,
    })
  const v: CapacityVary = CAPACITY_VARIES.includes(vary) ? vary : d.vary
  const wholeLoads = v === 'max-concurrency'
  const positive = (field: keyof CapacitySearchOptions, value: number, whole: boolean): number => {
    if (!Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value)))
      issues.push({
        path: path(field),
        message: `must be a ${whole ? 'whole number' : 'number'} above 0 (got ${String(value)})`,
      })
    return value
  }
  const minLoad = positive('minLoad', options.minLoad ?? d.minLoad, wholeLoads)
  const maxLoad = positive('maxLoad', options.maxLoad ?? d.maxLoad[v], wholeLoads)
  if (minLoad > 0 && maxLoad > 0 && minLoad > maxLoad)
    issues.push({
      path: path('maxLoad'),
      message: `must be at least the minimum load ${minLoad} (got ${maxLoad})`,
    })
  const precision = options.precision ?? d.precision
  if (!(precision > 0 && precision < 1))
    issues.push({
      path: path('precision'),
      message: `must be above 0 and below 1, such as 0.05 (got ${precision})`,
    })
  const probeRequests = positive('probeRequests', options.probeRequests ?? d.probeRequests, true)
  const maxProbeRequests = positive(
    'maxProbeRequests',
    options.maxProbeRequests ?? probeRequests * d.maxProbeRequestsFactor,
    true,
  )
  if (maxProbeRequests < probeRequests)
    issues.push({
      path: path('maxProbeRequests'),
      message: `must be at least the probe's first round, ${probeRequests} requests (got ${maxProbeRequests})`,
    })
  const budgetRequests = positive(
    'budgetRequests',
    options.budgetRequests ?? probeRequests * d.budgetRequestsFactor,
    true,
  )
  if (budgetRequests < probeRequests)
    issues.push({
      path: path('budgetRequests'),
      message: `must allow at least one probe of ${probeRequests} requests (got ${budgetRequests})`,
    })
  const confidence = options.confidence ?? d.confidence
  if (!(confidence > 0.5 && confidence < 1))
    issues.push({
      path: path('confidence'),
      message: `must be above 0.5 and below 1, such as 0.95 (got ${confidence})`,
    })
  return { vary: v, minLoad, maxLoad, precision, probeRequests, maxProbeRequests, budgetRequests, confidence }
}

/** {@link refusedServeFlags} for `serveBench.capacity`: the search's own flags named as its `search` fields. */
export function refusedCapacityOptions(
  flags: { has(name: string): boolean },
  vary: CapacityVary | undefined,
): ConfigIssue[] {
  return refusedServeFlags(flags, vary, 'serveBench.capacity option').map((issue) => ({
    ...issue,
    message: issue.message.replace(
      /--(vary|min-load|max-load|probe-requests|budget-requests)\b/g,
      (_, flag: string) => `search.${flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())}`,
    ),
  }))
}
