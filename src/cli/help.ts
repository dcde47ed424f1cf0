import { type FlagGroup, type FlagSpec, SERVE_FLAGS } from './flags.ts'

const GROUP_ORDER: readonly FlagGroup[] = [
  'Endpoint',
  'Model and tokenizer',
  'Dataset',
  'Traffic',
  'Request content',
  'Metrics',
  'Output',
  'Client',
]

/** vLLM's tip on JSON flags (Python: FlexibleArgumentParser._json_tip), shown with `--help=<keyword>`. */
export const JSON_FLAG_TIP: string = `When passing JSON CLI arguments, the following sets of arguments are equivalent:
   --json-arg '{"key1": "value1", "key2": {"key3": "value2"}}'
   --json-arg.key1 value1 --json-arg.key2.key3 value2

Additionally, list elements can be passed individually using +:
   --json-arg '{"key4": ["value3", "value4", "value5"]}'
   --json-arg.key4+ value3 --json-arg.key4+='value4,value5'
`

/** `servebench serve --help`: supported flags grouped by topic; planned ones listed by name at the end. */
export function formatServeHelp(flags: readonly FlagSpec[] = SERVE_FLAGS): string {
  const lines = [
    'Usage: servebench serve [flags]',
    '',
    'Benchmark an OpenAI-compatible serving endpoint with the flags of `vllm bench serve`.',
    'Flags may also be written with underscores (--num_prompts) and as --flag=value; --config FILE.yaml',
    'reads flags from a YAML file; --help=<group or keyword> shows one group or the flags matching a word.',
  ]
  for (const group of GROUP_ORDER) {
    const rows = flags.filter((f) => f.group === group && f.status !== 'planned')
    if (rows.length > 0) lines.push('', `${group}:`, ...rows.map(flagLine))
  }
  const planned = flags.filter((f) => f.status === 'planned').map((f) => f.name)
  if (planned.length > 0)
    lines.push('', `Not supported yet (rejected with exit code 2): ${planned.join(' ')}`)
  lines.push('')
  return lines.join('\n')
}

/**
 * `servebench serve --help=<keyword>` (Python: FlexibleArgumentParser.format_help): `all` is the
 * whole help; a group name (`endpoint`, `model-and-tokenizer`) shows that group; any other word
 * lists the flags whose names contain it. Underscores count as dashes, case is ignored.
 */
export function formatServeHelpSearch(keyword: string, flags: readonly FlagSpec[] = SERVE_FLAGS): string {
  const word = keyword.toLowerCase().replaceAll('_', '-')
  if (word === 'all') return `${formatServeHelp(flags)}\n${JSON_FLAG_TIP}`
  const supported = flags.filter((f) => f.status !== 'planned')
  const group = GROUP_ORDER.find(
    (g) => g.toLowerCase() === word || g.toLowerCase().replaceAll(' ', '-') === word,
  )
  if (group) {
    const rows = supported.filter((f) => f.group === group)
    return [`${group}:`, ...rows.map(flagLine), '', JSON_FLAG_TIP].join('\n')
  }
  const matched = supported.filter((f) => [f.name, ...(f.aliases ?? [])].some((n) => n.includes(word)))
  if (matched.length > 0) {
    return [`Arguments matching '${word}':`, ...matched.map(flagLine), '', JSON_FLAG_TIP].join('\n')
  }
  return `No group or arguments matching '${word}'.\nUse '--help' to see available groups or '--help=all' to see all available parameters.\n`
}

function flagLine(flag: FlagSpec): string {
  const names = [flag.name, ...(flag.aliases ?? [])].join(', ')
  const value = flag.type === 'boolean' ? '' : flag.type === 'list' ? ' VALUE...' : ' VALUE'
  const extra = [
    flag.choices ? `one of: ${flag.choices.join(', ')}` : '',
    flag.default !== undefined ? `default: ${flag.default}` : '',
  ].filter(Boolean)
  return `  ${`${names}${value}`.padEnd(34)} ${flag.help}${extra.length ? ` (${extra.join('; ')})` : ''}`
}
