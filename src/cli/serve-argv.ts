import { readFileSync, statSync } from 'node:fs'
import { extname } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { ConfigError, type ConfigIssue } from '../errors.ts'
import { type FlagSpec, findFlag, SERVE_FLAGS } from './flags.ts'
import { type ParsedFlags, parseArgs } from './parse-args.ts'

/** What {@link parseServeArgv} read from the command line and the `--config` file. */
export interface ServeArgv {
  /** Flag values: the file's, then the command line's (which win), dotted keys merged in. */
  flags: ParsedFlags
  /** The keyword of `--help=<keyword>`; undefined for a plain `--help` or none. */
  helpKeyword?: string
  /** Dotted keys given twice in one layer (`extra-body.temperature`); the last value won. */
  duplicateKeys: string[]
}

type JsonObject = Record<string, unknown>

/** Largest `--config` file: a file of flags is a few KiB; a YAML of millions of items is not one. */
const CONFIG_MAX_BYTES = 1024 * 1024
/** Most values in a `--config` file, every list item and mapping value counted. */
const CONFIG_MAX_ITEMS = 10_000
/** Deepest nesting of a `--config` value (an `--extra-body` object of objects). */
const CONFIG_MAX_DEPTH = 32
type Lookup = (token: string) => FlagSpec | undefined

/** One layer of arguments (the file's or the command line's), dotted flags split out. */
interface Layer {
  plain: string[]
  /** Base flag token (`--extra-body`) → the object its dotted keys build. */
  dotted: Map<string, JsonObject>
}

/**
 * vLLM's argument conventions on top of {@link parseArgs}
 * (Python: FlexibleArgumentParser, vllm/utils/argparse_utils.py):
 * - `--config file.yaml`: a YAML mapping of long flag names to values, read before the command
 *   line, so a flag on the command line replaces the file's value (lists included);
 * - dotted JSON flags: `--extra-body.temperature 0` sets one key of `--extra-body`'s object,
 *   `--extra-body.stop+ a,b` (or repeated `key+`) appends to a list; values are JSON, else
 *   human-readable integers (`1k`), else strings;
 * - `--help=<keyword>`: a group's flags or a search over flag names (see help.ts).
 * Every problem is reported at once in one `ConfigError`.
 */
export function parseServeArgv(
  argv: readonly string[],
  table: readonly FlagSpec[] = SERVE_FLAGS,
  commandName = 'servebench serve',
): ServeArgv {
  const lookup = lookupIn(table)
  const issues: ConfigIssue[] = []
  const duplicateKeys: string[] = []
  const command: string[] = []
  let helpKeyword: string | undefined
  let configPath: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (token.startsWith('--help=')) {
      helpKeyword = token.slice('--help='.length)
      command.push('--help')
    } else if (token === '--config' || token.startsWith('--config=')) {
      const path = token === '--config' ? argv[i + 1] : token.slice('--config='.length)
      if (token === '--config' && path !== undefined && !path.startsWith('--')) i++
      if (configPath !== undefined) issues.push({ path: '--config', message: 'may be given only once' })
      else if (!path || path.startsWith('--')) {
        issues.push({ path: '--config', message: 'needs a value (a .yaml or .yml file)' })
      } else configPath = path
    } else command.push(token)
  }
  const fileArgs = configPath !== undefined ? readConfigFile(configPath, lookup, issues) : []
  const file = splitDotted(fileArgs, lookup, issues, duplicateKeys)
  const cli = splitDotted(command, lookup, issues, duplicateKeys)
  const inFile = (issue: ConfigIssue): ConfigIssue => ({
    path: issue.path,
    message: `${issue.message} (in --config ${configPath})`,
  })
  const fileFlags = parseLayer(file.plain, table, commandName, issues, inFile)
  const cliFlags = parseLayer(cli.plain, table, commandName, issues, (issue) => issue)
  const flags: ParsedFlags = new Map([...fileFlags, ...cliFlags])
  for (const base of new Set([...file.dotted.keys(), ...cli.dotted.keys()])) {
    const spec = lookup(base)
    if (!spec || spec.type === 'boolean' || spec.type === 'list') {
      const why = spec ? `takes no JSON object` : `is not a ${commandName} flag`
      issues.push({
        path: base,
        message: `${why}; a dotted flag such as --extra-body.temperature sets one key of a JSON-object flag`,
      })
      continue
    }
    const cliPlain = cliFlags.get(spec.name)
    const start = objectOf(spec, cliPlain ?? fileFlags.get(spec.name), issues)
    if (!start) continue
    // Deviation: vLLM keeps only the dotted object (appended after the plain value); merging keeps
    // both. The command line wins: a plain value there drops the file's dotted keys of the same flag.
    if (cliPlain === undefined) mergeInto(start, file.dotted.get(base) ?? {}, '', [])
    mergeInto(start, cli.dotted.get(base) ?? {}, '', [])
    flags.set(spec.name, JSON.stringify(start))
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return { flags, duplicateKeys, ...(helpKeyword !== undefined ? { helpKeyword } : {}) }
}

/**
 * vLLM's `human_readable_int`: `1k` = 1000, `1K` = 1024 (k, m, g, t decimal; K, M, G, T binary,
 * whole numbers only); undefined when `text` is not such a number.
 */
export function humanReadableInt(text: string): number | undefined {
  const value = text.trim()
  const match = /^(\d+(?:\.\d+)?)([kKmMgGtT])$/.exec(value)
  if (match) {
    const [, number, suffix] = match as unknown as [string, string, string]
    const power = 'kmgt'.indexOf(suffix.toLowerCase()) + 1
    if (suffix === suffix.toLowerCase()) return Math.trunc(Number(number) * 1000 ** power)
    return /^\d+$/.test(number) ? Number(number) * 1024 ** power : undefined
  }
  return /^[+-]?\d+$/.test(value) ? Number.parseInt(value, 10) : undefined
}

/** The file's mapping as flag tokens (Python: load_config_file). */
function readConfigFile(path: string, lookup: Lookup, issues: ConfigIssue[]): string[] {
  const extension = extname(path).toLowerCase()
  if (extension !== '.yaml' && extension !== '.yml') {
    issues.push({ path: '--config', message: `must be a .yaml or .yml file (got ${path})` })
    return []
  }
  let config: unknown
  try {
    // A FIFO would block and a device never end: a regular file of at most CONFIG_MAX_BYTES.
    const info = statSync(path)
    if (!info.isFile()) {
      issues.push({ path: '--config', message: `${path} is not a regular file` })
      return []
    }
    if (info.size > CONFIG_MAX_BYTES) {
      issues.push({
        path: '--config',
        message: `${path} is ${info.size} bytes; a --config file is at most ${CONFIG_MAX_BYTES}`,
      })
      return []
    }
    config = parseYaml(readFileSync(path, 'utf8'))
  } catch (error) {
    const why =
      error instanceof RangeError
        ? `its values nest too deeply (at most ${CONFIG_MAX_DEPTH} levels)`
        : (error as Error).message.split('\n')[0]
    issues.push({ path: '--config', message: `cannot read ${path}: ${why}` })
    return []
  }
  const shape = yamlShapeProblem(config)
  if (shape !== undefined) {
    issues.push({ path: '--config', message: `${path} ${shape}` })
    return []
  }
  if (config === null || config === undefined) return []
  if (typeof config !== 'object' || Array.isArray(config)) {
    issues.push({
      path: '--config',
      message: `${path} must hold a mapping of long flag names to values, such as "num-prompts: 100"`,
    })
    return []
  }
  const args: string[] = []
  for (const [key, value] of Object.entries(config as JsonObject)) {
    const flag = `--${key}`
    if (value === null || value === undefined) continue // `key:` with no value sets nothing.
    if (flag === '--config') {
      issues.push({ path: '--config', message: `${path} sets config; a --config file cannot name another` })
      continue
    }
    if (typeof value === 'boolean') {
      if (value) args.push(flag)
      else if (lookup(`--no-${key}`)) args.push(`--no-${key}`)
    } else if (Array.isArray(value)) {
      if (value.length > 0) {
        args.push(flag)
        for (const item of value) args.push(argText(item))
      }
    } else args.push(flag, argText(value))
  }
  return args
}

/**
 * Why a parsed `--config` file is too big to be flags, or undefined: more than
 * {@link CONFIG_MAX_ITEMS} values in all, or values nested deeper than {@link CONFIG_MAX_DEPTH}.
 * Walked with its own stack, so a deep file cannot overflow the call stack here either.
 */
function yamlShapeProblem(config: unknown): string | undefined {
  let items = 0
  const stack: Array<[unknown, number]> = [[config, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (++items > CONFIG_MAX_ITEMS)
      return `holds more than ${CONFIG_MAX_ITEMS} values; a --config file holds flags`
    if (depth > CONFIG_MAX_DEPTH) return `nests values deeper than ${CONFIG_MAX_DEPTH} levels`
    if (typeof node !== 'object' || node === null) continue
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1])
  }
  return undefined
}

/** A YAML value as Python's `str()` / `json.dumps()` writes it on the command line. */
function argText(value: unknown): string {
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan'
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf'
    return String(value)
  }
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return value ? 'True' : 'False'
  return JSON.stringify(value)
}

function splitDotted(
  args: readonly string[],
  lookup: Lookup,
  issues: ConfigIssue[],
  duplicates: string[],
): Layer {
  const plain: string[] = []
  const dotted = new Map<string, JsonObject>()
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!
    const eq = token.indexOf('=')
    let name = eq === -1 ? token : token.slice(0, eq)
    if (!token.startsWith('--') || !name.includes('.')) {
      plain.push(token)
      continue
    }
    const text = eq === -1 ? args[++i] : token.slice(eq + 1)
    if (text === undefined) {
      issues.push({ path: name, message: 'needs a value' })
      continue
    }
    let value: unknown
    if (name.endsWith('+')) {
      name = name.slice(0, -1)
      value = text.split(',')
    } else value = parseDottedValue(text)
    const [token0, ...keys] = name.split('.') as [string, ...string[]]
    const base = lookup(token0)?.name ?? token0
    if (keys.some((key) => key === '')) {
      issues.push({ path: name, message: 'has an empty key; write --flag.key value' })
      continue
    }
    const object = dotted.get(base) ?? {}
    dotted.set(base, object)
    const nested = keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as JsonObject
    mergeInto(object, nested, base.replace(/^--/, ''), duplicates)
  }
  return { plain, dotted }
}

function parseDottedValue(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return humanReadableInt(text) ?? text
  }
}

/** Python's recursive_dict_update: objects merge, lists concatenate, anything else is replaced. */
function mergeInto(target: JsonObject, update: JsonObject, prefix: string, duplicates: string[]): void {
  for (const [key, value] of Object.entries(update)) {
    const own = Object.hasOwn(target, key)
    const existing = own ? target[key] : undefined
    const path = prefix ? `${prefix}.${key}` : key
    if (isObject(value) && isObject(existing)) mergeInto(existing, value, path, duplicates)
    else if (Array.isArray(value) && Array.isArray(existing)) existing.push(...value)
    else {
      if (own) duplicates.push(path)
      // defineProperty: a key such as `__proto__` is a plain key of the body, never the prototype.
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
    }
  }
}

function objectOf(
  spec: FlagSpec,
  value: string | string[] | true | undefined,
  issues: ConfigIssue[],
): JsonObject | undefined {
  if (value === undefined) return {}
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value)
      if (isObject(parsed)) return parsed
    } catch {}
  }
  issues.push({
    path: spec.name,
    message: `must be a JSON object to take dotted keys (got ${String(value)})`,
  })
  return undefined
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function parseLayer(
  args: readonly string[],
  table: readonly FlagSpec[],
  command: string,
  issues: ConfigIssue[],
  reword: (issue: ConfigIssue) => ConfigIssue,
): ParsedFlags {
  if (args.length === 0) return new Map()
  try {
    return parseArgs(args, table, command)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    issues.push(...error.issues.map(reword))
    return new Map()
  }
}

/** Lookup by name or alias, underscores read as dashes (as parse-args.ts). */
function lookupIn(table: readonly FlagSpec[]): Lookup {
  if (table === SERVE_FLAGS) return findFlag
  return (token) => {
    const name = token.startsWith('--') ? `--${token.slice(2).replaceAll('_', '-')}` : token
    return table.find((flag) => flag.name === name || flag.aliases?.includes(name))
  }
}
