import { ConfigError, type ConfigIssue } from '../errors.ts'
import { CLIENT_CHECK_MODES, type ClientCheckMode } from './bench-config.ts'
import { unknownKeyIssues } from './unknown-keys.ts'

/**
 * How a benchmark's checks are decided: the extension budget, what an undecided check does, and
 * the client self-check. See docs/statistics.md.
 */
export interface VerdictOptions {
  /** Two-sided confidence level of every interval. @default 0.95 */
  confidence?: number
  /**
   * While a check is `inconclusive`, the benchmark runs more rounds of requests (each with a fresh
   * seed) and judges all rounds together, until every check is decided or this budget is spent.
   * The first round counts. `false` runs one round only.
   * @default { rounds: 4, requests: 2000, seconds: 120 }
   */
  budget?: false | VerdictBudget
  /**
   * What a check still `inconclusive` when the budget is spent does: `point` fails it only when its
   * point estimate breaks the bound, `fail` fails it, `warn` passes it with a warning.
   * @default 'point'
   */
  inconclusive?: InconclusivePolicy
  /** Stop extending once a check has decisively failed (k6's `abortOnFail`). @default false */
  abortOnFail?: boolean
  /** Runs again, up to this many times, when the client self-check finds a round invalid. @default 1 */
  retryInvalid?: number
  /**
   * The client self-check (docs/client-health.md): `fail` makes a round whose client was saturated
   * invalid (after `retryInvalid`), `warn` only notes it in the summary, `off` does not measure.
   * @default 'fail'
   */
  clientCheck?: ClientCheckMode
  /**
   * Runs recorded into a new baseline (under `-u`, or when it is missing); their spread becomes
   * part of the test, so a busier or quieter machine on the day is not a regression. @default 3
   */
  baselineRuns?: number
}

/** The extension budget: rounds, requests and seconds of measured run, all rounds together. */
export interface VerdictBudget {
  /** Most rounds, the first included. @default 4 */
  rounds?: number
  /** Most requests, all rounds together. @default 2000 */
  requests?: number
  /** Most seconds of measured run, all rounds together. @default 120 */
  seconds?: number
}

export type InconclusivePolicy = 'point' | 'fail' | 'warn'

export interface ResolvedVerdictOptions {
  confidence: number
  clientCheck: ClientCheckMode
  budget: Required<VerdictBudget>
  inconclusive: InconclusivePolicy
  abortOnFail: boolean
  retryInvalid: number
  baselineRuns: number
}

export const DEFAULT_VERDICT_OPTIONS: ResolvedVerdictOptions = {
  confidence: 0.95,
  clientCheck: 'fail',
  budget: { rounds: 4, requests: 2_000, seconds: 120 },
  inconclusive: 'point',
  abortOnFail: false,
  retryInvalid: 1,
  baselineRuns: 3,
}

const KEYS = [
  'confidence',
  'budget',
  'inconclusive',
  'abortOnFail',
  'retryInvalid',
  'baselineRuns',
  'clientCheck',
]
const BUDGET_KEYS = ['rounds', 'requests', 'seconds']
const POLICIES: readonly InconclusivePolicy[] = ['point', 'fail', 'warn']

/**
 * Validates verdict options, naming each bad field from `where`: `serveBench('name').verdicts`, or
 * `servebench({ verdicts })` for the plugin's defaults of every suite.
 */
export function resolveVerdictOptions(options: unknown, where: string): ResolvedVerdictOptions {
  const at = (path: string): string => `${where}${path}`
  if (options === undefined) return DEFAULT_VERDICT_OPTIONS
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigError([{ path: at(''), message: `must be an object (got ${describe(options)})` }])
  }
  const issues: ConfigIssue[] = []
  const o = options as Record<string, unknown>
  issues.push(...unknownKeyIssues(o, KEYS, (key) => at(`.${key}`), 'verdicts'))
  const out: ResolvedVerdictOptions = {
    ...DEFAULT_VERDICT_OPTIONS,
    budget: { ...DEFAULT_VERDICT_OPTIONS.budget },
  }
  if (o.confidence !== undefined) {
    if (typeof o.confidence === 'number' && o.confidence >= 0.5 && o.confidence < 1)
      out.confidence = o.confidence
    else
      issues.push({
        path: at('.confidence'),
        message: `must be in [0.5, 1), e.g. 0.95 (got ${describe(o.confidence)})`,
      })
  }
  if (o.budget === false)
    out.budget = { rounds: 1, requests: Number.POSITIVE_INFINITY, seconds: Number.POSITIVE_INFINITY }
  else if (o.budget !== undefined) {
    if (typeof o.budget !== 'object' || o.budget === null || Array.isArray(o.budget)) {
      issues.push({
        path: at('.budget'),
        message: `must be false or { rounds?, requests?, seconds? } (got ${describe(o.budget)})`,
      })
    } else {
      const b = o.budget as Record<string, unknown>
      issues.push(...unknownKeyIssues(b, BUDGET_KEYS, (key) => at(`.budget.${key}`), 'verdicts.budget'))
      for (const key of BUDGET_KEYS as Array<keyof VerdictBudget>) {
        const v = b[key]
        if (v === undefined) continue
        const ok =
          key === 'seconds' ? typeof v === 'number' && v > 0 : Number.isInteger(v) && (v as number) >= 1
        if (ok) out.budget[key] = v as number
        else
          issues.push({
            path: at(`.budget.${key}`),
            message: `must be ${key === 'seconds' ? 'a number > 0' : 'an integer ≥ 1'} (got ${describe(v)})`,
          })
      }
    }
  }
  const inconclusive = choice(o, 'inconclusive', POLICIES, at, issues)
  if (inconclusive !== undefined) out.inconclusive = inconclusive
  if (o.abortOnFail !== undefined) {
    if (typeof o.abortOnFail === 'boolean') out.abortOnFail = o.abortOnFail
    else
      issues.push({
        path: at('.abortOnFail'),
        message: `must be true or false (got ${describe(o.abortOnFail)})`,
      })
  }
  const clientCheck = choice(o, 'clientCheck', CLIENT_CHECK_MODES, at, issues)
  if (clientCheck !== undefined) out.clientCheck = clientCheck
  for (const key of ['retryInvalid', 'baselineRuns'] as const) {
    const v = o[key]
    if (v === undefined) continue
    const min = key === 'retryInvalid' ? 0 : 1
    if (Number.isInteger(v) && (v as number) >= min && (v as number) <= 20) out[key] = v as number
    else
      issues.push({
        path: at(`.${key}`),
        message: `must be an integer from ${min} to 20 (got ${describe(v)})`,
      })
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return out
}

// One of `values`, or an issue that lists them.
function choice<T extends string>(
  o: Record<string, unknown>,
  key: string,
  values: readonly T[],
  at: (path: string) => string,
  issues: ConfigIssue[],
): T | undefined {
  const v = o[key]
  if (v === undefined || values.includes(v as T)) return v as T | undefined
  const listed = values.map((x) => `'${x}'`)
  issues.push({
    path: at(`.${key}`),
    message: `must be ${listed.slice(0, -1).join(', ')} or ${listed.at(-1)} (got ${describe(v)})`,
  })
  return undefined
}

function describe(v: unknown): string {
  if (typeof v === 'string') return `'${v}'`
  if (typeof v === 'object' && v !== null) return JSON.stringify(v).slice(0, 60)
  return String(v)
}

/** The plugin's defaults with a benchmark's own options on top (the budget merged field by field). */
export function mergeVerdictOptions(
  defaults: VerdictOptions | undefined,
  own: VerdictOptions | undefined,
): VerdictOptions | undefined {
  if (!defaults) return own
  if (!own) return defaults
  const budget =
    own.budget === false ||
    defaults.budget === false ||
    own.budget === undefined ||
    defaults.budget === undefined
      ? (own.budget ?? defaults.budget)
      : { ...defaults.budget, ...own.budget }
  return { ...defaults, ...own, ...(budget !== undefined ? { budget } : {}) }
}
