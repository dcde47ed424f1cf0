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

/** `servebench serve --help`: supported flags grouped by topic; planned ones listed by name at the end. */
export function formatServeHelp(flags: readonly FlagSpec[] = SERVE_FLAGS): string {
  const lines = [
    'Usage: servebench serve [flags]',
    '',
    'Benchmark an OpenAI-compatible serving endpoint with the flags of `vllm bench serve`.',
    'Flags may also be written with underscores (--num_prompts) and as --flag=value.',
  ]
  for (const group of GROUP_ORDER) {
    const rows = flags.filter((f) => f.group === group && f.status !== 'planned')
    if (rows.length === 0) continue
    lines.push('', `${group}:`)
    for (const flag of rows) {
      const names = [flag.name, ...(flag.aliases ?? [])].join(', ')
      const value = flag.type === 'boolean' ? '' : flag.type === 'list' ? ' VALUE...' : ' VALUE'
      const extra = [
        flag.choices ? `one of: ${flag.choices.join(', ')}` : '',
        flag.default !== undefined ? `default: ${flag.default}` : '',
      ].filter(Boolean)
      lines.push(
        `  ${`${names}${value}`.padEnd(34)} ${flag.help}${extra.length ? ` (${extra.join('; ')})` : ''}`,
      )
    }
  }
  const planned = flags.filter((f) => f.status === 'planned').map((f) => f.name)
  lines.push('', `Not supported yet (rejected with exit code 2): ${planned.join(' ')}`, '')
  return lines.join('\n')
}
