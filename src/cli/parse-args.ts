import { ConfigError, type ConfigIssue } from '../errors.ts'
import { type FlagType, findFlag, SERVE_FLAGS } from './flags.ts'

/** Raw flag values keyed by canonical flag name (`--num-prompts`). Later occurrences win; lists accumulate. */
export type ParsedFlags = Map<string, string | string[] | true>

/** What the parser needs of a flag: every subcommand's table gives at least this. */
export interface ArgSpec {
  name: string
  aliases?: readonly string[]
  type: FlagType
  help: string
  choices?: readonly string[]
  /** A boolean that also takes `=true` or `=false` (kept as that string). */
  explicitBoolean?: boolean
  /** A value flag that may be given more than once, one value each time (`--fail-on a --fail-on b`). */
  repeatable?: boolean
}

/** One subcommand's arguments: its flags and what its positional arguments are. */
export interface CommandArgs {
  /** As messages name it: `servebench compare`. */
  command: string
  flags: readonly ArgSpec[]
  /** Positional arguments, such as result files; none when absent. */
  positionals?: { what: string; min: number; max?: number }
}

/**
 * Parse `--flag value`, `--flag=value`, boolean `--flag`, and multi-value flags (`--header A=1 B=2`)
 * against a flag table (`command` names it in messages). Every problem is collected and thrown together as one `ConfigError`.
 */
export function parseArgs(
  argv: readonly string[],
  table: readonly ArgSpec[] = SERVE_FLAGS,
  command = 'servebench serve',
): ParsedFlags {
  return parseCommandArgs(argv, { command, flags: table }).flags
}

/**
 * The one argument parser of every subcommand: the flags as {@link parseArgs} reads them, and the
 * positional arguments counted against `spec.positionals`. All problems are thrown together as one
 * `ConfigError`, each naming the flag and what is valid.
 */
export function parseCommandArgs(
  argv: readonly string[],
  spec: CommandArgs,
): { flags: ParsedFlags; positionals: string[] } {
  const issues: ConfigIssue[] = []
  const parsed = scanCommandArgs(argv, spec, issues)
  if (issues.length > 0) throw new ConfigError(issues)
  return parsed
}

/**
 * {@link parseCommandArgs} for a caller that checks the values too: the problems are appended to
 * `issues` rather than thrown, so that one error can name them all.
 */
export function scanCommandArgs(
  argv: readonly string[],
  spec: CommandArgs,
  issues: ConfigIssue[],
): { flags: ParsedFlags; positionals: string[] } {
  const { command, flags: table } = spec
  const lookup = (token: string): ArgSpec | undefined =>
    table === SERVE_FLAGS ? findFlag(token) : findIn(table, token)
  const flags: ParsedFlags = new Map()
  const positionals: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (!token.startsWith('-') || token === '-') {
      if (spec.positionals) positionals.push(token)
      else issues.push({ path: token, message: 'is not a flag; values follow the flag they belong to' })
      continue
    }
    const eq = token.indexOf('=')
    const name = eq === -1 ? token : token.slice(0, eq)
    const inline = eq === -1 ? undefined : token.slice(eq + 1)
    const flag = lookup(name)
    if (!flag) {
      issues.push({ path: name, message: `is not a ${command} flag${suggest(name, table)}` })
      // Its values would otherwise be reported as stray tokens; a command with positional
      // arguments cannot tell them apart, so it keeps them.
      while (!spec.positionals && inline === undefined && i + 1 < argv.length && !isFlagToken(argv[i + 1]!))
        i++
      continue
    }
    if (flag.type === 'boolean') {
      if (inline === undefined) flags.set(flag.name, true)
      else if (flag.explicitBoolean && (inline === 'true' || inline === 'false')) flags.set(flag.name, inline)
      else
        issues.push({
          path: flag.name,
          message: flag.explicitBoolean
            ? `must be true or false (got "${inline}")`
            : `takes no value (got "${inline}")`,
        })
      continue
    }
    if (flag.type === 'list') {
      const values = inline !== undefined ? [inline] : []
      while (i + 1 < argv.length && !isFlagToken(argv[i + 1]!)) values.push(argv[++i]!)
      if (values.length === 0) issues.push({ path: flag.name, message: 'needs at least one value' })
      const previous = flags.get(flag.name)
      flags.set(flag.name, [...(Array.isArray(previous) ? previous : []), ...values])
      continue
    }
    let value = inline
    if (value === undefined) {
      const next = argv[i + 1]
      if (next === undefined || isFlagToken(next)) {
        issues.push({ path: flag.name, message: `needs a value${describeType(flag)}` })
        continue
      }
      value = next
      i++
    }
    const previous = flags.get(flag.name)
    flags.set(flag.name, flag.repeatable ? [...(Array.isArray(previous) ? previous : []), value] : value)
  }
  // After an unknown flag, its value may stand among the positionals: too many would mislead.
  const unknown = issues.some((issue) => issue.message.startsWith(`is not a ${command} flag`))
  if (spec.positionals) issues.push(...countIssues(positionals.length, command, spec.positionals, unknown))
  return { flags, positionals }
}

/** Whether the arguments ask for the subcommand's help. */
export function asksForHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h')
}

/** A flag's value as one string; a repeated value flag keeps its last occurrence. */
export function stringFlag(flags: ParsedFlags, name: string): string | undefined {
  const value = flags.get(name)
  if (value === undefined || value === true) return undefined
  return Array.isArray(value) ? value.at(-1) : value
}

function countIssues(
  count: number,
  command: string,
  { what, min, max }: NonNullable<CommandArgs['positionals']>,
  mayHaveStrayValues: boolean,
): ConfigIssue[] {
  const name = command.replace(/^servebench /, '')
  const help = `see ${command} --help`
  if (count < min) {
    const needs = max === min ? `${words(min)} ${what}` : `at least ${words(min)} ${what}`
    return [{ path: name, message: `needs ${needs} (got ${count}); ${help}` }]
  }
  if (max !== undefined && count > max && !mayHaveStrayValues) {
    const takes = max === min ? words(max) : `at most ${words(max)}`
    return [{ path: name, message: `takes ${takes} ${what} (got ${count}); ${help}` }]
  }
  return []
}

function words(n: number): string {
  return ['no', 'one', 'two', 'three'][n] ?? String(n)
}

/** A token starts a new flag unless it is a negative number (`--custom-output-len -1`). */
function isFlagToken(token: string): boolean {
  return token.startsWith('-') && !/^-\d/.test(token) && token !== '-'
}

function findIn(table: readonly ArgSpec[], token: string): ArgSpec | undefined {
  const name = token.startsWith('--') ? `--${token.slice(2).replaceAll('_', '-')}` : token
  return table.find((flag) => flag.name === name || flag.aliases?.includes(name))
}

function describeType(spec: ArgSpec): string {
  if (spec.choices) return ` (one of ${spec.choices.join(', ')})`
  switch (spec.type) {
    case 'int':
      return ' (an integer)'
    case 'number':
      return ' (a number)'
    case 'rate':
      return ' (a number or inf)'
    default:
      return ''
  }
}

/** The closest flag when one is near; a short table is listed whole, a long one points at --help. */
function suggest(name: string, table: readonly ArgSpec[]): string {
  const normalised = name.replaceAll('_', '-')
  let best: { name: string; distance: number } | undefined
  for (const flag of table) {
    for (const candidate of [flag.name, ...(flag.aliases ?? [])]) {
      const distance = levenshtein(normalised, candidate)
      if (!best || distance < best.distance) best = { name: flag.name, distance }
    }
  }
  const near = best && best.distance <= 3 ? `; did you mean ${best.name}?` : ''
  if (table.length > SHORT_TABLE) return `${near} (see --help)`
  const valid = table.flatMap((flag) => [flag.name, ...(flag.aliases ?? [])]).join(', ')
  return `${near}${near ? ' ' : '; '}valid: ${valid}, --help`
}

/** Up to this many flags, an unknown flag's message lists them all. */
const SHORT_TABLE = 8

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]!
}
