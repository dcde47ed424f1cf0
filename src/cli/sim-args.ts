/**
 * The arguments of `servebench sim`: its flag table, read by the one argument parser of every
 * subcommand (parse-args.ts), turned into {@link SimOptions} that `startSimulator` resolves.
 */
import { ConfigError, type ConfigIssue } from '../errors.ts'
import { faultHelp, parseFaultFlag } from '../sim/faults.ts'
import {
  numericProblem,
  SIM_TOKENIZER_ENCODINGS,
  type SimNumericOption,
  type SimOptions,
  type SimTokenizerEncoding,
} from '../sim/options.ts'
import { SIM_PROFILE_NAMES } from '../sim/profiles.ts'
import { type ArgSpec, type CommandArgs, scanCommandArgs } from './parse-args.ts'

/** One `servebench sim` flag: the parser's row, the option it sets, and how its value is read. */
export interface SimFlag {
  name: string
  key: keyof SimOptions
  kind: 'number' | 'string' | 'boolean' | 'fault' | 'negated-boolean' | 'tokenizer'
  help: string
}

/** Every `servebench sim` flag, in help order. */
export const SIM_FLAGS: readonly SimFlag[] = [
  { name: '--host', key: 'host', kind: 'string', help: 'interface to bind (default 127.0.0.1)' },
  { name: '--port', key: 'port', kind: 'number', help: 'TCP port, 0 = any free port (default 0)' },
  { name: '--model', key: 'model', kind: 'string', help: 'model id served (default servebench/sim-model)' },
  {
    name: '--tokenizer',
    key: 'tokenizer',
    kind: 'tokenizer',
    help: 'js-tiktoken encoding (default cl100k_base)',
  },
  {
    name: '--max-model-len',
    key: 'maxModelLen',
    kind: 'number',
    help: 'context window in tokens (default 32768)',
  },
  {
    name: '--decode-base-ms',
    key: 'decodeBaseMs',
    kind: 'number',
    help: 'fixed cost of one step (default 10)',
  },
  {
    name: '--decode-ms-per-seq',
    key: 'decodeMsPerSeq',
    kind: 'number',
    help: 'step cost per sequence (default 0.05)',
  },
  {
    name: '--prefill-ms-per-token',
    key: 'prefillMsPerToken',
    kind: 'number',
    help: 'step cost per prefilled prompt token (default 0.02)',
  },
  { name: '--max-num-seqs', key: 'maxNumSeqs', kind: 'number', help: 'most running sequences (default 256)' },
  {
    name: '--max-num-batched-tokens',
    key: 'maxNumBatchedTokens',
    kind: 'number',
    help: 'token budget of one step (default 8192)',
  },
  {
    name: '--ttft-ms',
    key: 'ttftMs',
    kind: 'number',
    help: 'fixed mode: time to first token (with --itl-ms)',
  },
  { name: '--itl-ms', key: 'itlMs', kind: 'number', help: 'fixed mode: gap between tokens (with --ttft-ms)' },
  {
    name: '--num-gpu-blocks',
    key: 'numGpuBlocks',
    kind: 'number',
    help: "KV-cache blocks (default: the profile's, else 65536)",
  },
  { name: '--block-size', key: 'blockSize', kind: 'number', help: 'tokens per KV-cache block (default 16)' },
  {
    name: '--enable-prefix-caching',
    key: 'enablePrefixCaching',
    kind: 'boolean',
    help: 'reuse cached blocks of identical prompt prefixes (default on)',
  },
  {
    name: '--no-enable-prefix-caching',
    key: 'enablePrefixCaching',
    kind: 'negated-boolean',
    help: 'turn prefix caching off',
  },
  {
    name: '--enable-prompt-tokens-details',
    key: 'enablePromptTokensDetails',
    kind: 'boolean',
    help: 'report usage.prompt_tokens_details.cached_tokens (default off)',
  },
  {
    name: '--profile-name',
    key: 'profileName',
    kind: 'string',
    help: `timing profile: ${SIM_PROFILE_NAMES.join(', ')}`,
  },
  { name: '--seed', key: 'seed', kind: 'number', help: 'seed of the generated text (default 0)' },
  {
    name: '--stop-probability',
    key: 'stopProbability',
    kind: 'number',
    help: 'chance per token of an early stop without ignore_eos (default 0)',
  },
  {
    name: '--spec-decode-num-tokens',
    key: 'specDecodeNumTokens',
    kind: 'number',
    help: 'speculative decoding: draft tokens per step (default off)',
  },
  {
    name: '--spec-decode-acceptance-rate',
    key: 'specDecodeAcceptanceRate',
    kind: 'number',
    help: 'speculative decoding: chance each draft token is accepted (default 0.7)',
  },
  {
    name: '--data-parallel-size',
    key: 'dataParallelSize',
    kind: 'number',
    help: "engine processes behind the one port, each independent, as vLLM's data-parallel replicas (default 1)",
  },
  { name: '--record-timings', key: 'recordTimings', kind: 'boolean', help: 'record event write times' },
  { name: '--api-key', key: 'apiKey', kind: 'string', help: 'require Authorization: Bearer <key>' },
  { name: '--fault', key: 'faults', kind: 'fault', help: faultHelp() },
]

const SIM_ARGS: CommandArgs = { command: 'servebench sim', flags: SIM_FLAGS.map(argSpec) }

/**
 * Parses `servebench sim` arguments (`--flag value` or `--flag=value`; booleans also bare or
 * `=true`/`=false`). Throws one {@link ConfigError} naming every bad flag and what would be valid.
 */
export function parseSimArgs(argv: readonly string[]): SimOptions {
  const issues: ConfigIssue[] = []
  const { flags } = scanCommandArgs(argv, SIM_ARGS, issues)
  const options: Record<string, unknown> = {}
  for (const [name, raw] of flags) {
    const flag = SIM_FLAGS.find((f) => f.name === name)!
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      const parsed = parseFlagValue(flag, value === true ? undefined : value)
      if ('problem' in parsed) issues.push({ path: flag.name, message: parsed.problem })
      else if (flag.kind === 'fault')
        options.faults = [...((options.faults as unknown[]) ?? []), parsed.value]
      else options[flag.key] = parsed.value
    }
  }
  if ((options.ttftMs === undefined) !== (options.itlMs === undefined)) {
    const missing = options.ttftMs === undefined ? '--ttft-ms' : '--itl-ms'
    issues.push({
      path: missing,
      message: 'must be set too: fixed timing mode needs both --ttft-ms and --itl-ms',
    })
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return options as SimOptions
}

/** The `servebench sim --help` text. */
export function simUsage(): string {
  const width = Math.max(...SIM_FLAGS.map((f) => f.name.length)) + 2
  const lines = SIM_FLAGS.map(
    (f) => `  ${f.name.padEnd(width)}${f.kind.endsWith('boolean') ? '' : '<value> '}${f.help}`,
  )
  return `Usage: servebench sim [flags]\n\nStarts a simulated vLLM server.\n\n${lines.join('\n')}\n`
}

function argSpec(flag: SimFlag): ArgSpec {
  const row = { name: flag.name, help: flag.help }
  switch (flag.kind) {
    case 'boolean':
      return { ...row, type: 'boolean', explicitBoolean: true }
    case 'negated-boolean':
      return { ...row, type: 'boolean' }
    case 'fault':
      return { ...row, type: 'string', repeatable: true }
    case 'tokenizer':
      return { ...row, type: 'string', choices: SIM_TOKENIZER_ENCODINGS }
    default:
      return { ...row, type: flag.kind }
  }
}

function parseFlagValue(flag: SimFlag, raw: string | undefined): { value: unknown } | { problem: string } {
  switch (flag.kind) {
    case 'boolean':
      return { value: raw !== 'false' }
    case 'negated-boolean':
      return { value: false }
    case 'string':
      if (raw === undefined || raw === '') return { problem: 'must not be empty' }
      return { value: raw }
    case 'fault':
      try {
        return { value: parseFaultFlag(raw ?? '') }
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error
        return { problem: error.issues.map((issue) => issue.message).join('; ') }
      }
    case 'tokenizer':
      if (SIM_TOKENIZER_ENCODINGS.includes(raw as SimTokenizerEncoding)) return { value: raw }
      return { problem: `must be one of ${SIM_TOKENIZER_ENCODINGS.join(', ')} (got '${raw ?? ''}')` }
    case 'number': {
      const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw)
      const problem = numericProblem(flag.key as SimNumericOption, value)
      return problem ? { problem: problem.replace(/\(got [^)]*\)$/, `(got '${raw ?? ''}')`) } : { value }
    }
  }
}
