/**
 * DSL options of the local-file and synthetic datasets (`datasets.custom()`, `datasets.sonnet()`,
 * …) and their validation into `DatasetConfig`s. `from-dsl.ts` calls {@link resolveLocalDatasetSpec}.
 */
import { SPEED_BENCH_SUBSETS } from '../datasets/speed-bench.ts'
import { DEFAULT_TIMED_TRACE_LABELS } from '../datasets/timed-trace.ts'
import type { ConfigIssue } from '../errors.ts'
import type { BackendName, DatasetConfig, SpeedBenchSubset, TimedTraceLabels } from './bench-config.ts'
import { COMPLETIONS_BACKENDS, DEFAULT_LOCAL_DATASETS } from './local-datasets-flags.ts'

interface CommonOptions {
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
}
interface OrderOptions {
  /** Keep file order (`--disable-shuffle`). @default false */
  disableShuffle?: boolean
  /** Do not repeat rows when the file has fewer than `numPrompts` (`--no-oversample`). @default false */
  noOversample?: boolean
}

/** Options of `datasets.custom` (`--dataset-name custom`). */
export interface CustomDatasetOptions extends CommonOptions, OrderOptions {
  /** A `.jsonl` file of `{"prompt": str, "output_tokens"?: int}` lines (`--dataset-path`). */
  path: string
  /** Output tokens per request; -1 takes each line's `output_tokens` (`--custom-output-len`). @default 256 */
  outputLen?: number
  /** Send prompts without the tokenizer's chat template (`--skip-chat-template`). @default false */
  skipChatTemplate?: boolean
}

/** Options of `datasets.sonnet` (`--dataset-name sonnet`). */
export interface SonnetDatasetOptions extends CommonOptions {
  /** A text file of poem lines. @default the built-in Shakespeare sonnets */
  path?: string
  /** Most prompt tokens per request (`--sonnet-input-len`). @default 550 */
  inputLen?: number
  /** Output tokens per request (`--sonnet-output-len`). @default 150 */
  outputLen?: number
  /** Tokens of poem lines shared by every prompt (`--sonnet-prefix-len`). @default 200 */
  prefixLen?: number
}

/** Options of `datasets.prefixRepetition` (`--dataset-name prefix_repetition`). */
export interface PrefixRepetitionDatasetOptions extends CommonOptions {
  /** Tokens of each shared prefix. @default 256 */
  prefixLen?: number
  /** Tokens after the prefix, different per request. @default 256 */
  suffixLen?: number
  /** Distinct prefixes; `numPrompts / numPrefixes` requests share each. @default 10 */
  numPrefixes?: number
  /** Output tokens per request. @default 128 */
  outputLen?: number
  /** Keep prefix groups together instead of interleaving them. @default false */
  disableShuffle?: boolean
}

/** Options of `datasets.burstgpt` (`--dataset-name burstgpt`). */
export interface BurstGptDatasetOptions extends CommonOptions {
  /** The BurstGPT `.csv` (columns `Model`, `Request tokens`, `Response tokens`). */
  path: string
}

/** Options of `datasets.speedBench` (`--dataset-name speed_bench`). */
export interface SpeedBenchDatasetOptions extends CommonOptions, OrderOptions {
  /** A directory of `{subset}.jsonl` files, or one such file. */
  path: string
  /** @default 'qualitative' */
  subset?: SpeedBenchSubset
  /** Output tokens per request. @default 4096 */
  outputLen?: number
  /** Keep only this category (exact match). @default every category */
  category?: string
}

/** Options of `datasets.specBench` (`--dataset-name spec_bench`). */
export interface SpecBenchDatasetOptions extends CommonOptions, OrderOptions {
  /** Spec-Bench's `question.jsonl`. */
  path: string
  /** Output tokens per request. @default 256 */
  outputLen?: number
  /** Keep only this category. @default every category */
  category?: string
}

/** Options of `datasets.timedTrace` (`--dataset-name timed_trace`; completions backends only). */
export interface TimedTraceDatasetOptions extends CommonOptions {
  /** A JSONL trace: one `{timestamp, input_length, output_length, hash_ids}` object per line. */
  path: string
  /** Prompt tokens each hash id stands for. @default 16 */
  chunkHashSize?: number
  /** Seconds per trace time unit (0.001 for milliseconds). @default 1 */
  secMultiplier?: number
  /** JSON field names. @default { timestamp: 'timestamp', inputLength: 'input_length', outputLength: 'output_length', hashIds: 'hash_ids' } */
  labels?: Partial<TimedTraceLabels>
  /** Send each request at its trace timestamp; `false` uses `load` instead. @default true */
  selfTimed?: boolean
}

export type CustomDatasetSpec = CustomDatasetOptions & { readonly kind: 'custom' }
export type SonnetDatasetSpec = SonnetDatasetOptions & { readonly kind: 'sonnet' }
export type PrefixRepetitionDatasetSpec = PrefixRepetitionDatasetOptions & {
  readonly kind: 'prefix_repetition'
}
export type BurstGptDatasetSpec = BurstGptDatasetOptions & { readonly kind: 'burstgpt' }
export type SpeedBenchDatasetSpec = SpeedBenchDatasetOptions & { readonly kind: 'speed_bench' }
export type SpecBenchDatasetSpec = SpecBenchDatasetOptions & { readonly kind: 'spec_bench' }
export type TimedTraceDatasetSpec = TimedTraceDatasetOptions & { readonly kind: 'timed_trace' }

export type LocalDatasetSpec =
  | CustomDatasetSpec
  | SonnetDatasetSpec
  | PrefixRepetitionDatasetSpec
  | BurstGptDatasetSpec
  | SpeedBenchDatasetSpec
  | SpecBenchDatasetSpec
  | TimedTraceDatasetSpec

const LOCAL_KINDS: ReadonlySet<string> = new Set([
  'custom',
  'sonnet',
  'prefix_repetition',
  'burstgpt',
  'speed_bench',
  'spec_bench',
  'timed_trace',
])

export function isLocalDatasetSpec(spec: { kind: string }): spec is LocalDatasetSpec {
  return LOCAL_KINDS.has(spec.kind)
}

/** What the validation needs besides the spec. */
export interface LocalDslContext {
  issues: ConfigIssue[]
  /** Prefixes a path with the benchmark: `serveBench('x').dataset.path`. */
  at: (path: string) => string
  backend: BackendName
  /** The `load` kind the benchmark set, if any (`poisson`, `constant`, `closed`, `rampUp`, `trace`). */
  loadKind?: string
}

/** Validates one spec, pushing every issue; returns the config (complete even when issues were found). */
export function resolveLocalDatasetSpec(spec: LocalDatasetSpec, ctx: LocalDslContext): DatasetConfig {
  const check = createChecks(ctx)
  const order = {
    disableShuffle: 'disableShuffle' in spec ? (spec.disableShuffle ?? false) : false,
    noOversample: 'noOversample' in spec ? (spec.noOversample ?? false) : false,
  }
  switch (spec.kind) {
    case 'custom': {
      const outputLen = spec.outputLen ?? DEFAULT_LOCAL_DATASETS.custom.outputLen
      if (!(Number.isInteger(outputLen) && (outputLen === -1 || outputLen >= 1)))
        check.fail(
          'outputLen',
          `must be -1 (each line's output_tokens) or an integer of at least 1 (got ${outputLen})`,
        )
      return {
        kind: 'custom',
        path: check.path(spec.path, true),
        outputLen,
        skipChatTemplate: spec.skipChatTemplate ?? false,
        ...order,
      }
    }
    case 'sonnet': {
      const d = DEFAULT_LOCAL_DATASETS.sonnet
      return {
        kind: 'sonnet',
        ...(spec.path !== undefined ? { path: check.path(spec.path, false) } : {}),
        inputLen: check.int('inputLen', spec.inputLen ?? d.inputLen, 1),
        outputLen: check.int('outputLen', spec.outputLen ?? d.outputLen, 1),
        prefixLen: check.int('prefixLen', spec.prefixLen ?? d.prefixLen, 0),
      }
    }
    case 'prefix_repetition': {
      const d = DEFAULT_LOCAL_DATASETS.prefixRepetition
      const prefixLen = check.int('prefixLen', spec.prefixLen ?? d.prefixLen, 0)
      const suffixLen = check.int('suffixLen', spec.suffixLen ?? d.suffixLen, 0)
      if (prefixLen + suffixLen < 1)
        check.fail('suffixLen', 'and prefixLen are both 0; a prompt needs at least 1 token')
      return {
        kind: 'prefix_repetition',
        prefixLen,
        suffixLen,
        numPrefixes: check.int('numPrefixes', spec.numPrefixes ?? d.numPrefixes, 1),
        outputLen: check.int('outputLen', spec.outputLen ?? d.outputLen, 1),
        disableShuffle: order.disableShuffle,
      }
    }
    case 'burstgpt':
      return { kind: 'burstgpt', path: check.path(spec.path, true) }
    case 'speed_bench': {
      const subset = spec.subset ?? DEFAULT_LOCAL_DATASETS.speedBench.subset
      if (!SPEED_BENCH_SUBSETS.includes(subset))
        check.fail('subset', `must be one of ${SPEED_BENCH_SUBSETS.join(', ')} (got '${subset}')`)
      return {
        kind: 'speed_bench',
        path: check.path(spec.path, true),
        subset,
        outputLen: check.int('outputLen', spec.outputLen ?? DEFAULT_LOCAL_DATASETS.speedBench.outputLen, 1),
        ...(spec.category !== undefined ? { category: spec.category } : {}),
        ...order,
      }
    }
    case 'spec_bench':
      return {
        kind: 'spec_bench',
        path: check.path(spec.path, true),
        outputLen: check.int('outputLen', spec.outputLen ?? DEFAULT_LOCAL_DATASETS.specBench.outputLen, 1),
        ...(spec.category !== undefined ? { category: spec.category } : {}),
        ...order,
      }
    case 'timed_trace':
      return resolveTimedTrace(spec, ctx, check)
  }
}

function resolveTimedTrace(
  spec: TimedTraceDatasetSpec,
  ctx: LocalDslContext,
  check: ReturnType<typeof createChecks>,
): DatasetConfig {
  const d = DEFAULT_LOCAL_DATASETS.timedTrace
  const secMultiplier = spec.secMultiplier ?? d.secMultiplier
  if (!(typeof secMultiplier === 'number' && Number.isFinite(secMultiplier) && secMultiplier > 0))
    check.fail('secMultiplier', `must be a finite number > 0 (got ${secMultiplier})`)
  const labels = { ...DEFAULT_TIMED_TRACE_LABELS, ...spec.labels }
  for (const [key, value] of Object.entries(labels)) {
    if (typeof value !== 'string' || value === '')
      check.fail(`labels.${key}`, 'must be a non-empty field name')
  }
  if (!COMPLETIONS_BACKENDS.includes(ctx.backend)) {
    ctx.issues.push({
      path: ctx.at('endpoint.backend'),
      message: `must be a completions backend (vllm or openai) with datasets.timedTrace(): it sends token-id prompts (got '${ctx.backend}')`,
    })
  }
  const selfTimed = spec.selfTimed ?? true
  if (selfTimed && ctx.loadKind !== undefined && ctx.loadKind !== 'closed' && ctx.loadKind !== 'trace') {
    ctx.issues.push({
      path: ctx.at('load'),
      message:
        'has no effect under trace-driven timing (datasets.timedTrace() sends each request at its trace timestamp); ' +
        'use load.trace() (time scale, concurrency cap) or load.closed(), or set selfTimed: false',
    })
  }
  return {
    kind: 'timed_trace',
    path: check.path(spec.path, true),
    chunkHashSize: check.int('chunkHashSize', spec.chunkHashSize ?? d.chunkHashSize, 1),
    secMultiplier,
    labels,
    selfTimed,
  }
}

function createChecks({ issues, at }: LocalDslContext) {
  const fail = (field: string, message: string): void => {
    issues.push({ path: at(`dataset.${field}`), message })
  }
  return {
    fail,
    int(field: string, value: number, min: number): number {
      if (!(Number.isInteger(value) && value >= min))
        fail(field, `must be an integer of at least ${min} (got ${value})`)
      return value
    },
    path(value: unknown, required: boolean): string {
      if (typeof value === 'string' && value !== '') return value
      if (value !== undefined || required) fail('path', `must be a file path (got ${JSON.stringify(value)})`)
      return ''
    },
  }
}
