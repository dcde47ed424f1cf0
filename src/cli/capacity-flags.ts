/**
 * The flags of `servebench capacity` beyond serve's: the SLOs, what is varied, the range and the
 * budget. The command reads them with serve's table (endpoint, dataset, load shape, output), and
 * `npm run docs:cli` writes their table into docs/capacity.md.
 */
import {
  type CapacitySearchOptions,
  DEFAULT_CAPACITY_SEARCH,
  refusedServeFlags,
} from '../capacity/options.ts'
import { VALID_SLO_METRICS } from '../capacity/slo.ts'
import { ConfigError, type ConfigIssue } from '../errors.ts'
import { type FlagSpec, SERVE_FLAGS } from './flags.ts'
import type { ParsedFlags } from './parse-args.ts'

const c = (name: string, type: FlagSpec['type'], help: string, extra: Partial<FlagSpec> = {}): FlagSpec => ({
  name,
  type,
  help,
  group: 'Capacity',
  status: 'supported',
  parity: 'servebench',
  ...extra,
})

const d = DEFAULT_CAPACITY_SEARCH

/** The capacity flags, in help order. */
export const CAPACITY_FLAGS: readonly FlagSpec[] = [
  c(
    '--slo',
    'list',
    `SLOs as METRIC:BOUND, one or more (repeatable): a result key such as p99_ttft_ms:500, mean_tpot_ms:50, p90_e2el_ms:2000, median_itl_ms:30 (an upper bound in ms; upstream's p99_ttft_ms:<=500 also reads), error_rate:0.01, goodput:0.95 (the fraction of requests within --goodput), or Python's --goodput form ttft:500 (with goodput ≥ ${0.99} unless goodput:F is given). Metrics: ${VALID_SLO_METRICS}. Required.`,
  ),
  c(
    '--vary',
    'string',
    'What the search varies: the Poisson request rate, or the concurrency of a closed loop.',
    {
      default: d.vary,
      choices: ['request-rate', 'max-concurrency'],
    },
  ),
  c('--min-load', 'number', 'The lowest load probed (req/s or concurrency); a failure there exits 1.', {
    default: String(d.minLoad),
  }),
  c('--max-load', 'number', 'The first load probed, the top of the range.', {
    default: `${d.maxLoad['request-rate']} (request-rate), ${d.maxLoad['max-concurrency']} (max-concurrency)`,
  }),
  c(
    '--precision',
    'number',
    'Stop once the probes around the answer are at most this far apart (relative).',
    { default: String(d.precision) },
  ),
  c('--probe-requests', 'int', "Requests of a probe's first round (replaces --num-prompts).", {
    default: String(d.probeRequests),
  }),
  c(
    '--max-probe-requests',
    'int',
    'Most requests at one load: an inconclusive probe is extended by the requests its checks need, up to this.',
    { default: `${d.maxProbeRequestsFactor} × --probe-requests` },
  ),
  c('--budget-requests', 'int', 'Most requests of the whole search.', {
    default: `${d.budgetRequestsFactor} × --probe-requests`,
  }),
  c(
    '--confidence',
    'number',
    "Confidence level of every probe's verdicts, and so of the answer's interval.",
    {
      default: String(d.confidence),
    },
  ),
]

/** The whole table `servebench capacity` reads: its own flags, then serve's. */
export const CAPACITY_COMMAND_FLAGS: readonly FlagSpec[] = [...CAPACITY_FLAGS, ...SERVE_FLAGS]

/** The capacity flags read out of `flags` (and removed from it, leaving serve's), with their issues. */
export function takeCapacityFlags(
  flags: ParsedFlags,
  issues: ConfigIssue[],
): { slos: string[]; search: CapacitySearchOptions } {
  const num = (name: string): number | undefined => {
    const value = flags.get(name)
    flags.delete(name)
    if (value === undefined || value === true) return undefined
    const text = Array.isArray(value) ? value.at(-1)! : value
    const n = Number(text)
    if (text.trim() === '' || !Number.isFinite(n)) {
      issues.push({ path: name, message: `must be a number (got "${text}")` })
      return undefined
    }
    return n
  }
  const slo = flags.get('--slo')
  flags.delete('--slo')
  const slos = Array.isArray(slo) ? slo : typeof slo === 'string' ? [slo] : []
  if (slos.length === 0)
    issues.push({ path: '--slo', message: `is required: at least one METRIC:BOUND such as p99_ttft_ms:500` })
  const vary = flags.get('--vary')
  flags.delete('--vary')
  const search: CapacitySearchOptions = {}
  if (typeof vary === 'string') search.vary = vary as CapacitySearchOptions['vary']
  const fields: Array<[keyof CapacitySearchOptions, string]> = [
    ['minLoad', '--min-load'],
    ['maxLoad', '--max-load'],
    ['precision', '--precision'],
    ['probeRequests', '--probe-requests'],
    ['maxProbeRequests', '--max-probe-requests'],
    ['budgetRequests', '--budget-requests'],
    ['confidence', '--confidence'],
  ]
  for (const [field, name] of fields) {
    const value = num(name)
    if (value !== undefined) (search as Record<string, unknown>)[field] = value
  }
  issues.push(...refusedServeFlags(flags, search.vary, 'servebench capacity flag'))
  return { slos, search }
}

/** The flag each search field is given by, for messages. */
export function capacityFlagOf(field: keyof CapacitySearchOptions): string {
  return `--${field.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`)}`
}

/** `servebench capacity --help`. */
export function formatCapacityHelp(): string {
  const lines = [
    'Usage: servebench capacity --slo METRIC:BOUND... [flags] [serve flags]',
    '',
    'The highest load at which every SLO holds: bracketing from --max-load, then narrowing between the',
    'highest load that passed and the lowest that failed; each probe is judged with its interval and',
    'extended while inconclusive. Takes the serve flags for the endpoint, the dataset and the load shape',
    '(servebench serve --help). Exit 0: a capacity was found; 1: even --min-load breaks an SLO; 2: bad input.',
    '',
    'Capacity:',
  ]
  for (const flag of CAPACITY_FLAGS) {
    const extra = [
      flag.choices ? `one of: ${flag.choices.join(', ')}` : '',
      flag.default !== undefined ? `default: ${flag.default}` : '',
    ].filter(Boolean)
    const value = flag.type === 'list' ? ' VALUE...' : ' VALUE'
    lines.push(
      `  ${`${flag.name}${value}`.padEnd(26)} ${flag.help}${extra.length ? ` (${extra.join('; ')})` : ''}`,
    )
  }
  lines.push('')
  return lines.join('\n')
}

/** Throws the issues as one ConfigError when there are any. */
export function throwIssues(issues: readonly ConfigIssue[]): void {
  if (issues.length > 0) throw new ConfigError([...issues])
}
