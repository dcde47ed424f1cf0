import { ConfigError, type ConfigIssue } from '../errors.ts'
import { TIKTOKEN_ENCODINGS, type TiktokenEncodingName } from '../tokenizer/tiktoken.ts'
import { type FaultSpec, faultHelp, parseFaultFlag, type ResolvedFault, resolveFaults } from './faults.ts'
import { resolveEngineShape, SIM_PROFILE_NAMES, type SimProfileName } from './profiles.ts'

/**
 * How the simulator turns text into token ids and back. The default is a js-tiktoken encoding;
 * anything with these two methods (for example a `src/tokenizer/` instance) can be passed as
 * {@link SimOptions.tokenizer} instead.
 */
export interface SimTokenizer {
  encode(text: string): number[]
  decode(ids: number[]): string
}

/** The js-tiktoken encodings the simulator can load by name: the client's built-in ones. */
export type SimTokenizerEncoding = TiktokenEncodingName

/** The encodings accepted by `--tokenizer`, in the order they are listed in error messages. */
export const SIM_TOKENIZER_ENCODINGS: readonly SimTokenizerEncoding[] = TIKTOKEN_ENCODINGS

/**
 * Options of the simulated vLLM server (`servebench sim`). Every field is optional.
 * See docs/simulator.md for the timing model.
 */
export interface SimOptions {
  /**
   * Interface to bind. The simulator is meant for local tests; bind elsewhere only on purpose.
   * @default '127.0.0.1'
   */
  host?: string
  /**
   * TCP port; 0 picks a free ephemeral port (read it back from `SimServer.port`).
   * @default 0
   */
  port?: number
  /**
   * Model id reported by `/v1/models` (as `id` and `root`) and used when a request names none.
   * Requests naming another model are still served, and their name is echoed back.
   * @default 'servebench/sim-model'
   */
  model?: string
  /**
   * js-tiktoken encoding name, or a tokenizer object, used to count prompt tokens and to
   * serve `/tokenize` and `/detokenize`.
   * @default 'cl100k_base'
   */
  tokenizer?: SimTokenizerEncoding | SimTokenizer
  /**
   * Context window: prompt tokens + max_tokens above it are rejected with 400, as vLLM does;
   * also the default max_tokens (`maxModelLen - promptTokens`) when a request sets none.
   * @default 32768
   */
  maxModelLen?: number
  /**
   * Fixed cost of one engine step (batching model).
   * @default 10
   */
  decodeBaseMs?: number
  /**
   * Added step cost per sequence in the batch (batching model): more concurrent streams slow every stream.
   * @default 0.05
   */
  decodeMsPerSeq?: number
  /**
   * Added step cost per prompt token prefilled in the step (batching model).
   * @default 0.02
   */
  prefillMsPerToken?: number
  /**
   * Most sequences running at once; further requests wait in FIFO order (`vllm:num_requests_waiting`).
   * @default 256
   */
  maxNumSeqs?: number
  /**
   * Token budget of one step: one per decoding sequence, the rest goes to chunked prefill.
   * @default 8192
   */
  maxNumBatchedTokens?: number
  /**
   * KV-cache size in blocks of {@link SimOptions.blockSize} tokens. Admission needs free blocks;
   * when they run out requests wait, and a decode that cannot get a block preempts the newest
   * running sequence, which re-prefills later (`vllm:num_preemptions_total`).
   * @default the profile's, else 65536
   */
  numGpuBlocks?: number
  /**
   * Tokens per KV-cache block.
   * @default 16
   */
  blockSize?: number
  /**
   * Reuse the cached blocks of an identical prompt prefix (vLLM's prefix caching), skipping their prefill.
   * @default true
   */
  enablePrefixCaching?: boolean
  /**
   * Report each request's prefix-cache hit as `usage.prompt_tokens_details.cached_tokens`
   * (vLLM's `--enable-prompt-tokens-details`).
   * @default false
   */
  enablePromptTokensDetails?: boolean
  /**
   * Named timing profile (docs/simulator.md) that sets the step costs and KV blocks; explicit
   * options override each of its values.
   * @default undefined (the defaults above)
   */
  profileName?: SimProfileName
  /**
   * Fixed timing mode: the first token is written exactly this long after the request body was read.
   * Must be set together with {@link SimOptions.itlMs}; when both are set the batching model is off.
   * @default undefined (batching model)
   */
  ttftMs?: number
  /**
   * Fixed timing mode: gap between consecutive tokens. Must be set together with {@link SimOptions.ttftMs}.
   * @default undefined (batching model)
   */
  itlMs?: number
  /**
   * Seed of the generated text; the same seed and prompt give the same text.
   * @default 0
   */
  seed?: number
  /**
   * Chance per token that a request without `ignore_eos` ends early with `finish_reason: "stop"`.
   * @default 0
   */
  stopProbability?: number
  /**
   * Speculative decoding: draft tokens proposed per decode step. Each step then emits the accepted
   * drafts plus one token as a single event, and `/metrics` exports `vllm:spec_decode_*` counters.
   * @default undefined (no speculative decoding)
   */
  specDecodeNumTokens?: number
  /**
   * Speculative decoding: the chance that each draft token is accepted, which is the expected
   * acceptance rate `/metrics` reports. Used with {@link SimOptions.specDecodeNumTokens}.
   * @default 0.7
   */
  specDecodeAcceptanceRate?: number
  /**
   * Record when each request's body was read and when each event was written
   * (`SimServer.timings()`, `GET /servebench/timings`).
   * @default false
   */
  recordTimings?: boolean
  /**
   * When set, every route except `/health`, `/ping`, `/version` and `/metrics` requires
   * `Authorization: Bearer <apiKey>` and answers 401 otherwise.
   * @default undefined (no authentication)
   */
  apiKey?: string
  /**
   * Faults injected into generation requests, as `--fault` strings (`'reset:p=0.1'`) or objects;
   * see docs/simulator.md, "Faults". Change them while running with `SimServer.setFaults()`.
   * @default []
   */
  faults?: ReadonlyArray<FaultSpec | string>
}

/** {@link SimOptions} with every default applied and the tokenizer loaded. */
export interface ResolvedSimOptions {
  host: string
  port: number
  model: string
  tokenizerName: string
  tokenizer: SimTokenizer
  maxModelLen: number
  decodeBaseMs: number
  decodeMsPerSeq: number
  prefillMsPerToken: number
  maxNumSeqs: number
  maxNumBatchedTokens: number
  numGpuBlocks: number
  blockSize: number
  enablePrefixCaching: boolean
  enablePromptTokensDetails: boolean
  profileName: SimProfileName | undefined
  /** Both set → fixed timing mode. */
  fixed: { ttftMs: number; itlMs: number } | undefined
  seed: number
  stopProbability: number
  /** Set when speculative decoding is on. */
  specDecode: { numTokens: number; acceptanceRate: number } | undefined
  recordTimings: boolean
  apiKey: string | undefined
  faults: ResolvedFault[]
}

/** Defaults of every {@link SimOptions} field that has one. */
export const DEFAULT_SIM_OPTIONS = {
  host: '127.0.0.1',
  port: 0,
  model: 'servebench/sim-model',
  tokenizer: 'cl100k_base',
  maxModelLen: 32_768,
  decodeBaseMs: 10,
  decodeMsPerSeq: 0.05,
  prefillMsPerToken: 0.02,
  maxNumSeqs: 256,
  maxNumBatchedTokens: 8192,
  numGpuBlocks: 65_536,
  blockSize: 16,
  enablePrefixCaching: true,
  enablePromptTokensDetails: false,
  seed: 0,
  stopProbability: 0,
  recordTimings: false,
} as const satisfies SimOptions

/** The numeric options and the range each accepts; shared by the option and flag validators. */
export const SIM_NUMERIC_LIMITS = {
  port: { integer: true, min: 0, max: 65_535 },
  maxModelLen: { integer: true, min: 1 },
  decodeBaseMs: { integer: false, min: 0 },
  decodeMsPerSeq: { integer: false, min: 0 },
  prefillMsPerToken: { integer: false, min: 0 },
  maxNumSeqs: { integer: true, min: 1 },
  maxNumBatchedTokens: { integer: true, min: 1 },
  numGpuBlocks: { integer: true, min: 1 },
  blockSize: { integer: true, min: 1, max: 1024 },
  ttftMs: { integer: false, min: 0 },
  itlMs: { integer: false, min: 0 },
  seed: { integer: true, min: 0 },
  stopProbability: { integer: false, min: 0, max: 1 },
  specDecodeNumTokens: { integer: true, min: 1, max: 64 },
  specDecodeAcceptanceRate: { integer: false, min: 0, max: 1 },
} as const satisfies Record<string, { integer: boolean; min: number; max?: number }>

export type SimNumericOption = keyof typeof SIM_NUMERIC_LIMITS

/**
 * Applies defaults and validates; throws one {@link ConfigError} listing every bad field.
 * `loadTokenizer` turns an encoding name into a tokenizer (injected so this file stays free of js-tiktoken).
 */
export function resolveSimOptions(
  options: SimOptions,
  loadTokenizer: (encoding: SimTokenizerEncoding) => SimTokenizer,
): ResolvedSimOptions {
  const issues: ConfigIssue[] = []
  for (const key of Object.keys(SIM_NUMERIC_LIMITS) as SimNumericOption[]) {
    const value = options[key]
    if (value === undefined) continue
    const problem = numericProblem(key, value)
    if (problem) issues.push({ path: key, message: problem })
  }
  if ((options.ttftMs === undefined) !== (options.itlMs === undefined)) {
    const missing = options.ttftMs === undefined ? 'ttftMs' : 'itlMs'
    issues.push({ path: missing, message: 'must be set too: fixed timing mode needs both ttftMs and itlMs' })
  }
  const tokenizerOption = options.tokenizer ?? DEFAULT_SIM_OPTIONS.tokenizer
  if (typeof tokenizerOption === 'string' && !SIM_TOKENIZER_ENCODINGS.includes(tokenizerOption)) {
    issues.push({
      path: 'tokenizer',
      message: `must be one of ${SIM_TOKENIZER_ENCODINGS.join(', ')} (got '${tokenizerOption}')`,
    })
  }
  if (options.model !== undefined && options.model.trim() === '') {
    issues.push({ path: 'model', message: 'must not be empty' })
  }
  const engine = resolveEngineShape(options, DEFAULT_SIM_OPTIONS, issues)
  let faults: ResolvedFault[] = []
  try {
    faults = resolveFaults(options.faults ?? [])
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    issues.push(...error.issues)
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return {
    faults,
    host: options.host ?? DEFAULT_SIM_OPTIONS.host,
    port: options.port ?? DEFAULT_SIM_OPTIONS.port,
    model: options.model ?? DEFAULT_SIM_OPTIONS.model,
    tokenizerName: typeof tokenizerOption === 'string' ? tokenizerOption : 'custom',
    tokenizer: typeof tokenizerOption === 'string' ? loadTokenizer(tokenizerOption) : tokenizerOption,
    maxModelLen: options.maxModelLen ?? DEFAULT_SIM_OPTIONS.maxModelLen,
    ...engine,
    maxNumSeqs: options.maxNumSeqs ?? DEFAULT_SIM_OPTIONS.maxNumSeqs,
    maxNumBatchedTokens: options.maxNumBatchedTokens ?? DEFAULT_SIM_OPTIONS.maxNumBatchedTokens,
    fixed:
      options.ttftMs !== undefined && options.itlMs !== undefined
        ? { ttftMs: options.ttftMs, itlMs: options.itlMs }
        : undefined,
    seed: options.seed ?? DEFAULT_SIM_OPTIONS.seed,
    enablePromptTokensDetails:
      options.enablePromptTokensDetails ?? DEFAULT_SIM_OPTIONS.enablePromptTokensDetails,
    stopProbability: options.stopProbability ?? DEFAULT_SIM_OPTIONS.stopProbability,
    specDecode:
      options.specDecodeNumTokens !== undefined
        ? { numTokens: options.specDecodeNumTokens, acceptanceRate: options.specDecodeAcceptanceRate ?? 0.7 }
        : undefined,
    recordTimings: options.recordTimings ?? DEFAULT_SIM_OPTIONS.recordTimings,
    apiKey: options.apiKey,
  }
}

/** Why `value` is not valid for `key`, phrased to follow the field name; undefined when it is valid. */
export function numericProblem(key: SimNumericOption, value: number): string | undefined {
  const limits: { integer: boolean; min: number; max?: number } = SIM_NUMERIC_LIMITS[key]
  const kind = limits.integer ? 'an integer' : 'a number'
  const range = limits.max === undefined ? `>= ${limits.min}` : `between ${limits.min} and ${limits.max}`
  const valid = Number.isFinite(value) && (!limits.integer || Number.isInteger(value))
  if (valid && value >= limits.min && (limits.max === undefined || value <= limits.max)) return undefined
  return `must be ${kind} ${range} (got ${String(value)})`
}

/** One `servebench sim` flag: its name, the option it sets, and how its value is read. */
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
  { name: '--record-timings', key: 'recordTimings', kind: 'boolean', help: 'record event write times' },
  { name: '--api-key', key: 'apiKey', kind: 'string', help: 'require Authorization: Bearer <key>' },
  { name: '--fault', key: 'faults', kind: 'fault', help: faultHelp() },
]

/**
 * Parses `servebench sim` arguments (`--flag value` or `--flag=value`; booleans also bare).
 * Throws one {@link ConfigError} naming every bad flag and what would be valid.
 */
export function parseSimArgs(argv: string[]): SimOptions {
  const issues: ConfigIssue[] = []
  const options: Record<string, unknown> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const eq = arg.indexOf('=')
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg
    const flag = SIM_FLAGS.find((f) => f.name === name)
    if (!flag) {
      const what = arg.startsWith('-') ? 'is not a flag of servebench sim' : 'is an unexpected argument'
      issues.push({ path: name, message: `${what}; valid flags: ${SIM_FLAGS.map((f) => f.name).join(', ')}` })
      continue
    }
    let raw: string | undefined
    if (eq > 0 && arg.startsWith('--')) raw = arg.slice(eq + 1)
    else if (flag.kind !== 'boolean' && flag.kind !== 'negated-boolean') {
      raw = argv[i + 1]
      if (raw === undefined || raw.startsWith('--')) {
        issues.push({ path: flag.name, message: 'needs a value' })
        continue
      }
      i++
    }
    const parsed = parseFlagValue(flag, raw)
    if ('problem' in parsed) issues.push({ path: flag.name, message: parsed.problem })
    else if (flag.kind === 'fault') options.faults = [...((options.faults as unknown[]) ?? []), parsed.value]
    else options[flag.key] = parsed.value
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

function parseFlagValue(flag: SimFlag, raw: string | undefined): { value: unknown } | { problem: string } {
  switch (flag.kind) {
    case 'boolean':
      if (raw === undefined || raw === 'true') return { value: true }
      if (raw === 'false') return { value: false }
      return { problem: `must be true or false (got '${raw}')` }
    case 'negated-boolean':
      if (raw === undefined) return { value: false }
      return { problem: 'takes no value' }
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

/**
 * `servebench sim [flags]`: starts the simulator, prints
 * `servebench sim listening on http://127.0.0.1:PORT (model …)` and resolves with 0 once
 * SIGINT or SIGTERM has closed it. `--help` prints the flags. Bad flags throw {@link ConfigError}.
 */
export async function runSimCommand(argv: string[]): Promise<number> {
  // Loaded lazily: the server imports this file, and the CLI should not load js-tiktoken for `--help`.
  const { runSimServer } = await import('./command.ts')
  return runSimServer(argv)
}
