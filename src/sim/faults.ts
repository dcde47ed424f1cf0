// Fault injection: which faults exist, the `--fault` grammar, and which requests get which fault.
// How a fault changes a response is in fault-response.ts. See docs/simulator.md, "Faults".
import { ConfigError, type ConfigIssue } from '../errors.ts'
import { createRng, type Rng } from '../rng.ts'

/** The faults the simulator can inject into a generation request. */
export type FaultKind =
  | 'http500'
  | 'http429'
  | 'http503'
  | 'reset'
  | 'stall'
  | 'malformed-json'
  | 'no-done'
  | 'byte-split'
  | 'utf8-split'
  | 'slow-headers'

/** Every fault kind, in the order docs and messages list them. */
export const FAULT_KINDS: readonly FaultKind[] = [
  'http500',
  'http429',
  'http503',
  'reset',
  'stall',
  'malformed-json',
  'no-done',
  'byte-split',
  'utf8-split',
  'slow-headers',
]

/**
 * One fault and when it fires. At most one of `p`, `every` and `nth`; with none, it fires on
 * every generation request. Requests are counted from 1, from when the faults were set.
 */
export interface FaultSpec {
  kind: FaultKind
  /** Chance per request, drawn from a generator seeded by the simulator's `seed`. */
  p?: number
  /** Fires on requests N, 2N, 3N, … */
  every?: number
  /** Fires on request N only. */
  nth?: number
  /**
   * `reset`, `stall`, `malformed-json`: events written before the fault (default 1).
   * `no-done`: end the stream cleanly after this many events (default: after the last one, dropping only `[DONE]`).
   */
  after?: number
  /** `stall`: how long the stream goes silent; `slow-headers`: delay before the response starts. @default 1000 */
  ms?: number
  /** `http429` (default 1) and `http503` (default none): the `Retry-After` header, whole seconds. */
  retryAfterS?: number
}

/** A {@link FaultSpec} with its defaults applied: `after`, `ms` and `retryAfterS` are set where they apply. */
export type ResolvedFault = FaultSpec

/** What happens to one request: at most one error answer, then the stream faults, in order. */
export interface FaultPlan {
  /** Answered with this HTTP error instead of generating. */
  error: ResolvedFault | undefined
  /** Faults applied to the response stream (`slow-headers` included). */
  stream: ResolvedFault[]
}

export const DEFAULT_FAULT_MS = 1000
const ERROR_KINDS = new Set<FaultKind>(['http500', 'http429', 'http503'])
const AFTER_KINDS = new Set<FaultKind>(['reset', 'stall', 'malformed-json', 'no-done'])
const MS_KINDS = new Set<FaultKind>(['stall', 'slow-headers'])
const RETRY_AFTER_KINDS = new Set<FaultKind>(['http429', 'http503'])
// `--fault` keys → FaultSpec fields.
const FLAG_KEYS: Record<string, keyof FaultSpec> = {
  p: 'p',
  every: 'every',
  nth: 'nth',
  after: 'after',
  ms: 'ms',
  'retry-after': 'retryAfterS',
}
const FAULT_GRAMMAR = 'KIND[:KEY=VALUE,...] (keys p, every, nth, after, ms, retry-after)'

/**
 * Picks the faults of each generation request. Seeded: the same faults, seed and request order
 * give the same plan for every request.
 */
export class FaultInjector {
  private faults: ResolvedFault[] = []
  private count = 0
  private rng: Rng
  private readonly seed: number

  constructor(seed: number, faults: readonly ResolvedFault[] = []) {
    this.seed = seed
    this.rng = createRng(seed)
    this.set(faults)
  }

  /** Replaces the faults and restarts the request count and the generator. */
  set(faults: readonly ResolvedFault[]): void {
    this.faults = faults.map((f) => ({ ...f }))
    this.count = 0
    this.rng = createRng(this.seed ^ 0x5eed_fa17)
  }

  list(): ResolvedFault[] {
    return this.faults.map((f) => ({ ...f }))
  }

  /** The plan of the next generation request. */
  next(): FaultPlan {
    const n = ++this.count
    const plan: FaultPlan = { error: undefined, stream: [] }
    for (const fault of this.faults) {
      if (!this.fires(fault, n)) continue
      if (ERROR_KINDS.has(fault.kind)) plan.error ??= fault
      else plan.stream.push(fault)
    }
    return plan
  }

  private fires(fault: ResolvedFault, n: number): boolean {
    // Every fault with `p` draws on every request, so one fault's draws do not shift another's.
    if (fault.p !== undefined) return this.rng.next() < fault.p
    if (fault.every !== undefined) return n % fault.every === 0
    if (fault.nth !== undefined) return n === fault.nth
    return true
  }
}

/**
 * Parses one `--fault` value: `KIND[:KEY=VALUE,...]`, for example `reset:p=0.1,after=3`,
 * `http500:nth=3`, `stall:every=2,ms=500`. Throws a {@link ConfigError} naming `path`.
 */
export function parseFaultFlag(value: string, path = '--fault'): ResolvedFault {
  const [kind = '', params] = splitOnce(value.trim(), ':')
  const spec: Record<string, unknown> = { kind }
  const issues: ConfigIssue[] = []
  for (const pair of params === undefined || params === '' ? [] : params.split(',')) {
    const [key = '', raw] = splitOnce(pair.trim(), '=')
    const field = FLAG_KEYS[key]
    const number = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw)
    if (!field) {
      issues.push({
        path,
        message: `has unknown key "${key}" in "${value}"; valid keys: ${Object.keys(FLAG_KEYS).join(', ')}`,
      })
    } else if (Number.isNaN(number)) {
      issues.push({ path, message: `needs a number for ${key} in "${value}" (got "${raw ?? ''}")` })
    } else spec[field] = number
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return resolveFault(spec, path, value)
}

/** Resolves faults given as `--fault` strings or objects (the control endpoint, `setFaults()`). */
export function resolveFaults(faults: ReadonlyArray<FaultSpec | string>, path = 'faults'): ResolvedFault[] {
  const issues: ConfigIssue[] = []
  const resolved: ResolvedFault[] = []
  faults.forEach((fault, i) => {
    try {
      resolved.push(
        typeof fault === 'string'
          ? parseFaultFlag(fault, `${path}[${i}]`)
          : resolveFault(fault, `${path}[${i}]`),
      )
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error
      issues.push(...error.issues)
    }
  })
  if (issues.length > 0) throw new ConfigError(issues)
  return resolved
}

/** The `--fault` help text. */
export function faultHelp(): string {
  return `inject a fault: ${FAULT_GRAMMAR}; kinds ${FAULT_KINDS.join(', ')} (repeatable)`
}

/** `--fault` form of a resolved fault, for logs. */
export function formatFault(fault: FaultSpec): string {
  const parts: string[] = []
  for (const [key, field] of Object.entries(FLAG_KEYS)) {
    const value = fault[field]
    if (value !== undefined && field !== 'kind') parts.push(`${key}=${value}`)
  }
  return parts.length > 0 ? `${fault.kind}:${parts.join(',')}` : fault.kind
}

function resolveFault(input: unknown, path: string, flag?: string): ResolvedFault {
  const fail = (message: string): never => {
    throw new ConfigError([{ path, message: flag === undefined ? message : `${message} in "${flag}"` }])
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return fail(`must be a fault object or a string ${FAULT_GRAMMAR}`)
  }
  const spec = input as Record<string, unknown>
  const kind = spec.kind
  if (typeof kind !== 'string' || !(FAULT_KINDS as readonly string[]).includes(kind)) {
    return fail(`has unknown fault kind "${String(kind ?? '')}"; valid: ${FAULT_KINDS.join(', ')}`)
  }
  const issues: ConfigIssue[] = []
  const check = (key: keyof FaultSpec, ok: (v: number) => boolean, rule: string): void => {
    const value = spec[key]
    if (value === undefined) return
    if (typeof value !== 'number' || !ok(value)) {
      const name =
        flag === undefined ? key : (Object.keys(FLAG_KEYS).find((k) => FLAG_KEYS[k] === key) ?? key)
      issues.push({
        path,
        message: `${name} must be ${rule} (got ${JSON.stringify(value)})${flag ? ` in "${flag}"` : ''}`,
      })
    }
  }
  const positiveInt = (v: number): boolean => Number.isInteger(v) && v >= 1
  check('p', (v) => v >= 0 && v <= 1, 'a number between 0 and 1')
  check('every', positiveInt, 'an integer >= 1')
  check('nth', positiveInt, 'an integer >= 1')
  check('after', (v) => Number.isInteger(v) && v >= 0, 'an integer >= 0')
  check('ms', (v) => Number.isFinite(v) && v >= 0, 'a number of milliseconds >= 0')
  check('retryAfterS', (v) => Number.isInteger(v) && v >= 0, 'whole seconds >= 0')
  const triggers = (['p', 'every', 'nth'] as const).filter((k) => spec[k] !== undefined)
  if (triggers.length > 1) {
    issues.push({
      path,
      message: `sets ${triggers.join(' and ')}${flag ? ` in "${flag}"` : ''}; use at most one of p, every, nth`,
    })
  }
  const known = new Set(['kind', 'p', 'every', 'nth', 'after', 'ms', 'retryAfterS'])
  for (const key of Object.keys(spec)) {
    if (!known.has(key))
      issues.push({ path, message: `has unknown field "${key}"; valid: ${[...known].join(', ')}` })
  }
  const k = kind as FaultKind
  const misplaced = (key: keyof FaultSpec, kinds: Set<FaultKind>, name: string): void => {
    if (spec[key] !== undefined && !kinds.has(k)) {
      issues.push({
        path,
        message: `${name} does not apply to ${k}${flag ? ` in "${flag}"` : ''}; it applies to ${[...kinds].join(', ')}`,
      })
    }
  }
  misplaced('after', AFTER_KINDS, 'after')
  misplaced('ms', MS_KINDS, 'ms')
  misplaced('retryAfterS', RETRY_AFTER_KINDS, flag === undefined ? 'retryAfterS' : 'retry-after')
  if (issues.length > 0) throw new ConfigError(issues)
  const fault: ResolvedFault = { kind: k }
  const ms = (spec.ms as number | undefined) ?? (MS_KINDS.has(k) ? DEFAULT_FAULT_MS : undefined)
  if (ms !== undefined) fault.ms = ms
  const after = (spec.after as number | undefined) ?? (AFTER_KINDS.has(k) && k !== 'no-done' ? 1 : undefined)
  if (after !== undefined) fault.after = after
  for (const key of ['p', 'every', 'nth'] as const)
    if (spec[key] !== undefined) fault[key] = spec[key] as number
  const retryAfterS = (spec.retryAfterS as number | undefined) ?? (k === 'http429' ? 1 : undefined)
  if (retryAfterS !== undefined) fault.retryAfterS = retryAfterS
  return fault
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator)
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)]
}
