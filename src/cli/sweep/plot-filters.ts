import { ConfigError } from '../../errors.ts'

/** A sweep run as read from a `summary.json`: result keys, `run_number` and the point's parameters. */
export type RunRecord = Record<string, unknown>

/** One `--filter-by` statement: `max_concurrency<1000`. Python: PlotFilterBase (vllm/benchmarks/sweep/plot.py). */
export interface PlotFilter {
  variable: string
  op: FilterOp
  target: string
}

/** One `--bin-by` statement: `request_throughput%1`. Python: PlotBinner. */
export interface PlotBinner {
  variable: string
  binSize: number
}

type FilterOp = '==' | '!=' | '<=' | '>=' | '<' | '>'

// Longer operators first, so `<=` is not read as `<`.
const FILTER_OPS: readonly FilterOp[] = ['==', '!=', '<=', '>=', '<', '>']

/** `--filter-by a<1000,b==x` as filters; a statement without an operator is a ConfigError. Python: PlotFilters.parse_str. */
export function parseFilters(text: string): PlotFilter[] {
  if (!text) return []
  return text.split(',').map((statement) => {
    const op = FILTER_OPS.find((o) => statement.includes(o))
    if (!op) {
      throw new ConfigError([
        {
          path: '--filter-by',
          message: `has no operator in "${statement}"; valid operators: ${[...FILTER_OPS].sort().join(' ')}`,
        },
      ])
    }
    const [variable = '', target = ''] = statement.split(op)
    return { variable, op, target: target.replace(/^['"]+|['"]+$/g, '') }
  })
}

/** `--bin-by request_throughput%1` as binners. Python: PlotBinners.parse_str. */
export function parseBinners(text: string): PlotBinner[] {
  if (!text) return []
  return text.split(',').map((statement) => {
    const [variable = '', size, ...rest] = statement.split('%')
    const binSize = Number(size)
    if (size === undefined || rest.length > 0 || !variable || !(binSize > 0)) {
      throw new ConfigError([
        {
          path: '--bin-by',
          message: `must be VARIABLE%BIN_SIZE with a bin size above 0 (got "${statement}")`,
        },
      ])
    }
    return { variable, binSize }
  })
}

/** The runs every filter keeps, in order. Python: PlotFilters.apply. */
export function applyFilters(runs: readonly RunRecord[], filters: readonly PlotFilter[]): RunRecord[] {
  return runs.filter((run) => filters.every((f) => keeps(run[f.variable], f)))
}

/** Each binned value floored to its bin (`value // size * size`). Python: PlotBinners.apply. */
export function applyBinners(runs: readonly RunRecord[], binners: readonly PlotBinner[]): RunRecord[] {
  return runs.map((run) => {
    const copy = { ...run }
    for (const b of binners) {
      const value = asNumber(copy[b.variable])
      if (value !== undefined) copy[b.variable] = Math.floor(value / b.binSize) * b.binSize
    }
    return copy
  })
}

/** The strings `inf`, `-inf` and `nan` as numbers. Python: _convert_inf_nan_strings. */
export function convertInfNan(run: RunRecord): RunRecord {
  const out: RunRecord = {}
  for (const [key, value] of Object.entries(run)) {
    out[key] =
      value === 'inf'
        ? Number.POSITIVE_INFINITY
        : value === '-inf'
          ? Number.NEGATIVE_INFINITY
          : value === 'nan'
            ? Number.NaN
            : value
  }
  return out
}

function keeps(value: unknown, filter: PlotFilter): boolean {
  if (filter.op === '==' || filter.op === '!=') {
    const target = Number(filter.target)
    // pandas compares with a float when the target reads as one, else with the string.
    const equal =
      filter.target.trim() !== '' && !Number.isNaN(target)
        ? asNumber(value) === target
        : typeof value === 'string' && value === filter.target
    return filter.op === '==' ? equal : !equal
  }
  const n = asNumber(value)
  const target = Number(filter.target)
  if (n === undefined || Number.isNaN(target)) return false
  if (filter.op === '<') return n < target
  if (filter.op === '<=') return n <= target
  if (filter.op === '>') return n > target
  return n >= target
}

function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && !Number.isNaN(value) ? value : undefined
}
