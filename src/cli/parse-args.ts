import { ConfigError, type ConfigIssue } from '../errors.ts'
import { type FlagSpec, findFlag, SERVE_FLAGS } from './flags.ts'

/** Raw flag values keyed by canonical flag name (`--num-prompts`). Later occurrences win; lists accumulate. */
export type ParsedFlags = Map<string, string | string[] | true>

/**
 * Parse `--flag value`, `--flag=value`, boolean `--flag`, and multi-value flags (`--header A=1 B=2`)
 * against a flag table (`command` names it in messages). Every problem is collected and thrown together as one `ConfigError`.
 */
export function parseArgs(
  argv: readonly string[],
  table: readonly FlagSpec[] = SERVE_FLAGS,
  command = 'servebench serve',
): ParsedFlags {
  const lookup = table === SERVE_FLAGS ? findFlag : (token: string) => findIn(table, token)
  const flags: ParsedFlags = new Map()
  const issues: ConfigIssue[] = []
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (!token.startsWith('-') || token === '-') {
      issues.push({ path: token, message: 'is not a flag; values follow the flag they belong to' })
      continue
    }
    const eq = token.indexOf('=')
    const name = eq === -1 ? token : token.slice(0, eq)
    const inline = eq === -1 ? undefined : token.slice(eq + 1)
    const spec = lookup(name)
    if (!spec) {
      issues.push({ path: name, message: `is not a ${command} flag${suggest(name, table)}` })
      // Its values would otherwise be reported as stray tokens.
      while (inline === undefined && i + 1 < argv.length && !isFlagToken(argv[i + 1]!)) i++
      continue
    }
    if (spec.type === 'boolean') {
      if (inline !== undefined) issues.push({ path: spec.name, message: `takes no value (got "${inline}")` })
      flags.set(spec.name, true)
      continue
    }
    if (spec.type === 'list') {
      const values = inline !== undefined ? [inline] : []
      while (i + 1 < argv.length && !isFlagToken(argv[i + 1]!)) values.push(argv[++i]!)
      if (values.length === 0) issues.push({ path: spec.name, message: 'needs at least one value' })
      const previous = flags.get(spec.name)
      flags.set(spec.name, [...(Array.isArray(previous) ? previous : []), ...values])
      continue
    }
    let value = inline
    if (value === undefined) {
      const next = argv[i + 1]
      if (next === undefined || isFlagToken(next)) {
        issues.push({ path: spec.name, message: `needs a value${describeType(spec)}` })
        continue
      }
      value = next
      i++
    }
    flags.set(spec.name, value)
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return flags
}

/** A token starts a new flag unless it is a negative number (`--custom-output-len -1`). */
function isFlagToken(token: string): boolean {
  return token.startsWith('-') && !/^-\d/.test(token) && token !== '-'
}

function findIn(table: readonly FlagSpec[], token: string): FlagSpec | undefined {
  const name = token.startsWith('--') ? `--${token.slice(2).replaceAll('_', '-')}` : token
  return table.find((flag) => flag.name === name || flag.aliases?.includes(name))
}

function describeType(spec: FlagSpec): string {
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

function suggest(name: string, table: readonly FlagSpec[]): string {
  const normalised = name.replaceAll('_', '-')
  let best: { name: string; distance: number } | undefined
  for (const flag of table) {
    const distance = levenshtein(normalised, flag.name)
    if (!best || distance < best.distance) best = { name: flag.name, distance }
  }
  return best && best.distance <= 3 ? `; did you mean ${best.name}? (see --help)` : ' (see --help)'
}

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
