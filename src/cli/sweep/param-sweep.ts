import { ConfigError } from '../../errors.ts'

/**
 * One point of a parameter grid: parameter name (`max_num_seqs`, `max-concurrency`, or a dotted
 * `compilation_config.mode`) → value, with an optional `_benchmark_name`.
 * Python: ParameterSweepItem (vllm/benchmarks/sweep/param_sweep.py).
 */
export type SweepItem = Record<string, unknown>

const NAME_KEY = '_benchmark_name'

/**
 * Reads a `--serve-params` / `--bench-params` file's JSON: a list of objects, or an object whose
 * keys are the points' names (`{"small": {...}}` → `_benchmark_name: "small"`). Names must be
 * unique. Python: ParameterSweep.read_json / read_from_dict / from_records.
 */
export function parseSweepItems(data: unknown, flag: string): SweepItem[] {
  const records = isObject(data)
    ? Object.entries(data).map(([name, params]) => {
        if (!isObject(params))
          throw new ConfigError([{ path: flag, message: `point "${name}" must be a JSON object` }])
        return { [NAME_KEY]: name, ...params }
      })
    : data
  if (!Array.isArray(records)) {
    throw new ConfigError([
      { path: flag, message: 'must hold a JSON list of objects, or an object of named objects' },
    ])
  }
  records.forEach((record, index) => {
    if (!isObject(record)) {
      throw new ConfigError([
        { path: flag, message: `item ${index} must be a JSON object (got ${JSON.stringify(record)})` },
      ])
    }
  })
  const names = records.flatMap((r) => (NAME_KEY in r ? [String(r[NAME_KEY])] : []))
  const repeated = [...new Set(names.filter((name, i) => names.indexOf(name) !== i))]
  if (repeated.length > 0) {
    throw new ConfigError([
      {
        path: flag,
        message: `has duplicate _benchmark_name values (${repeated.join(', ')}); each must be unique`,
      },
    ])
  }
  return records as SweepItem[]
}

/** `_benchmark_name`, else `k=v` pairs joined by `-`. Python: ParameterSweepItem.name. */
export function sweepItemName(item: SweepItem): string {
  if (NAME_KEY in item) return String(item[NAME_KEY])
  return sweepItemText(item, '-')
}

/** The parameters as `k=v` joined by `sep` (Python: as_text), values written as Python's `str`. */
export function sweepItemText(item: SweepItem, sep = ', '): string {
  return Object.entries(item)
    .filter(([key]) => key !== NAME_KEY)
    .map(([key, value]) => `${key}=${pythonStr(value)}`)
    .join(sep)
}

/**
 * The command with the item's parameters applied: a flag already in the command (spelt with
 * dashes or underscores) gets its value replaced, any other is appended; `true` is the bare flag,
 * `false` its `--no-` form (dotted keys get `=true` / `=false`); an object is written as JSON.
 * Python: ParameterSweepItem.apply_to_cmd.
 */
export function applyToCommand(item: SweepItem, command: readonly string[]): string[] {
  const cmd = [...command]
  for (const [key, raw] of Object.entries(item)) {
    if (key === NAME_KEY) continue
    const value = isObject(raw) ? JSON.stringify(raw) : raw
    const pair = cmdPair(key, value)
    const index = cmdKeyCandidates(key)
      .map((candidate) => cmd.indexOf(candidate))
      .find((i) => i !== -1)
    if (index === undefined) cmd.push(...pair)
    else if (pair.length === 1) cmd[index] = pair[0]!
    else {
      cmd[index] = pair[0]!
      cmd[index + 1] = pair[1]!
    }
  }
  return cmd
}

/** `--link-vars max_num_seqs=max_concurrency,...` as pairs. Python: parse_link_vars. */
export function parseLinkVars(text: string): Array<[string, string]> {
  if (!text) return []
  return text.split(',').map((item) => {
    const parts = item.split('=')
    if (parts.length !== 2 || !parts[0]!.trim() || !parts[1]!.trim()) {
      throw new ConfigError([
        {
          path: '--link-vars',
          message: `must be SERVE_KEY=BENCH_KEY pairs separated by commas (got "${item}")`,
        },
      ])
    }
    return [parts[0]!.trim(), parts[1]!.trim()]
  })
}

/** A serve and a bench point go together when every linked pair has equal values. Python: _comb_is_valid. */
export function linkedPointsMatch(
  serve: SweepItem,
  bench: SweepItem,
  linkVars: ReadonlyArray<readonly [string, string]>,
): boolean {
  return linkVars.every(
    ([serveKey, benchKey]) =>
      serveKey in serve &&
      benchKey in bench &&
      JSON.stringify(serve[serveKey]) === JSON.stringify(bench[benchKey]),
  )
}

/**
 * The folder of one serve × bench point under the experiment folder:
 * `SERVE--<serve name>-BENCH--<bench name>` (`benchTag` `STARTUP-` for `sweep startup`), then any
 * `extra` parts (`WL-`, `request_rate=4`), `/` → `_` and `..` → `__`. Python: _get_comb_base_path.
 */
export function pointFolderName(
  serve: SweepItem,
  bench: SweepItem,
  extra: readonly string[] = [],
  benchTag = 'BENCH-',
): string {
  const parts: string[] = []
  if (Object.keys(serve).length > 0) parts.push('SERVE-', sweepItemName(serve))
  if (Object.keys(bench).length > 0) parts.push(benchTag, sweepItemName(bench))
  parts.push(...extra)
  return sanitizeFilename(parts.join('-'))
}

/** `/` → `_` and `..` → `__`. Python: sanitize_filename (vllm/benchmarks/sweep/utils.py). */
export function sanitizeFilename(name: string): string {
  return name.replaceAll('/', '_').replaceAll('..', '__')
}

/** Whether the item sets `key`, spelt with dashes or underscores. Python: ParameterSweepItem.has_param. */
export function hasParam(item: SweepItem, key: string): boolean {
  return paramKeyCandidates(key).some((candidate) => candidate in item)
}

/** A value as Python's `str()` writes it (`True`, `None`, `[1, 2]`, `{'a': 1}`). */
export function pythonStr(value: unknown): string {
  if (value === null || value === undefined) return 'None'
  if (typeof value === 'boolean') return value ? 'True' : 'False'
  if (typeof value === 'string') return value
  if (typeof value === 'number') return pythonNumber(value)
  return pythonRepr(value)
}

function pythonRepr(value: unknown): string {
  if (typeof value === 'string') return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`
  if (isObject(value)) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`)
      .join(', ')}}`
  }
  return pythonStr(value)
}

function pythonNumber(value: number): string {
  if (Number.isNaN(value)) return 'nan'
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf'
  return String(value)
}

// In JSON "_" is preferred, on the command line "-"; a dotted key keeps its inner part as is.
function paramKeyCandidates(key: string): string[] {
  const dot = key.indexOf('.')
  if (dot !== -1) {
    const rest = key.slice(dot)
    return paramKeyCandidates(key.slice(0, dot)).map((prefix) => `${prefix}${rest}`)
  }
  return [key, key.replaceAll('-', '_'), key.replaceAll('_', '-')]
}

function cmdKeyCandidates(key: string): string[] {
  return paramKeyCandidates(key)
    .reverse()
    .map((k) => `--${k}`)
}

function cmdPair(key: string, value: unknown): string[] {
  const flag = cmdKeyCandidates(key)[0]!
  if (typeof value === 'boolean') {
    if (key.includes('.')) return [`${flag}=${value ? 'true' : 'false'}`]
    return [value ? flag : cmdKeyCandidates(`no-${key}`)[0]!]
  }
  return [flag, pythonStr(value)]
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
