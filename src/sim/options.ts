import { ConfigError, type ConfigIssue } from '../errors.ts'
import { TIKTOKEN_ENCODINGS, type TiktokenEncodingName } from '../tokenizer/tiktoken.ts'
import { type FaultSpec, type ResolvedFault, resolveFaults } from './faults.ts'
import { resolveEngineShape, type SimProfileName } from './profiles.ts'

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
  /**
   * Engine processes behind the one port, each an independent engine (its own scheduler, KV cache
   * and HTTP server) as vLLM's data-parallel replicas are (`--data-parallel-size`): connections
   * are dealt over them, `/metrics` carries each one labelled `engine="i"`, and `stats()` sums
   * them. Needs a tokenizer given by name: each process loads its own. See docs/simulator.md.
   * @default 1
   */
  dataParallelSize?: number
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
  dataParallelSize: number
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
  dataParallelSize: 1,
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
  dataParallelSize: { integer: true, min: 1, max: 64 },
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
  if (typeof tokenizerOption !== 'string' && (options.dataParallelSize ?? 1) > 1) {
    issues.push({
      path: 'tokenizer',
      message: 'must be an encoding name with dataParallelSize above 1: each engine process loads its own',
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
    dataParallelSize: options.dataParallelSize ?? DEFAULT_SIM_OPTIONS.dataParallelSize,
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
