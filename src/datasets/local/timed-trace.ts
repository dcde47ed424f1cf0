import type { BackendName } from '../../config/bench-config.ts'
import { type DatasetFlagContext, needsTokenizer, requirePath } from '../../config/dataset-flag-checks.ts'
import { type FieldSpec, f } from '../../config/dsl-fields.ts'
import type { SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { type ConfigIssue, DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { readJsonlRows } from '../dataset-file.ts'
import { type DatasetContext, type DslFieldTable, defineDataset, flagRow } from '../dataset-module.ts'
import { fieldError, typeName } from '../sampling.ts'
import { type CommonOptions, NUM_PROMPTS_FIELD, PATH_FIELD } from '../shared-flags.ts'

/** JSON field names of a timed trace (`--timed-trace-label-*`). */
export interface TimedTraceLabels {
  timestamp: string
  inputLength: string
  outputLength: string
  hashIds: string
}

/** `--dataset-name timed_trace`: a Mooncake-style JSONL trace replayed as token-id prompts. */
export interface TimedTraceDatasetConfig {
  kind: 'timed_trace'
  path: string
  chunkHashSize: number
  secMultiplier: number
  labels: TimedTraceLabels
  /** Send each request at its trace timestamp instead of the computed schedule. */
  selfTimed: boolean
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

const NAME = 'timed_trace'
const MASK_64 = 0xffff_ffff_ffff_ffffn
/** Rust's multiplier for the per-hash seed (the 64-bit golden ratio). */
const HASH_SEED_MULTIPLIER = 0x9e37_79b9_7f4a_7c15n

/** The `--timed-trace-label-*` flag of each label, for messages. */
export const TIMED_TRACE_LABEL_FLAGS: { readonly [K in keyof TimedTraceLabels]: string } = {
  timestamp: '--timed-trace-label-timestamp',
  inputLength: '--timed-trace-label-input-length',
  outputLength: '--timed-trace-label-output-length',
  hashIds: '--timed-trace-label-hash-ids',
}

/** Mooncake's field names, the upstream defaults. */
export const DEFAULT_TIMED_TRACE_LABELS: TimedTraceLabels = {
  timestamp: 'timestamp',
  inputLength: 'input_length',
  outputLength: 'output_length',
  hashIds: 'hash_ids',
}

/** Upstream defaults (Rust `cli.rs`). */
export const DEFAULT_TIMED_TRACE = { chunkHashSize: 16, secMultiplier: 1 } as const

const CHUNK_HASH_SIZE = flagRow(
  '--timed-trace-chunk-hash-size',
  'int',
  'timed_trace: prompt tokens each hash id stands for.',
  { default: String(DEFAULT_TIMED_TRACE.chunkHashSize) },
)
const SEC_MULTIPLIER = flagRow(
  '--timed-trace-sec-multiplier',
  'number',
  'timed_trace: seconds per trace time unit (0.001 for ms).',
  { default: '1.0' },
)
const LABEL_HELP: { readonly [K in keyof TimedTraceLabels]: string } = {
  timestamp: 'timed_trace: JSON field of the timestamp.',
  inputLength: 'timed_trace: JSON field of the input length.',
  outputLength: 'timed_trace: JSON field of the output length.',
  hashIds: 'timed_trace: JSON field of the hash ids.',
}
const LABEL_KEYS = Object.keys(LABEL_HELP) as Array<keyof TimedTraceLabels>
const LABEL_ROWS = LABEL_KEYS.map((key) =>
  flagRow(TIMED_TRACE_LABEL_FLAGS[key], 'string', LABEL_HELP[key], {
    default: DEFAULT_TIMED_TRACE_LABELS[key],
  }),
)
const SELF_TIMED = flagRow(
  '--self-timed',
  'boolean',
  'timed_trace: send each request at its trace timestamp (the default).',
)
const NO_SELF_TIMED = flagRow(
  '--no-self-timed',
  'boolean',
  'timed_trace: use --request-rate and --burstiness instead of the trace times.',
)

type TimedTraceFields = Omit<DslFieldTable<TimedTraceDatasetOptions>, 'labels'> &
  Readonly<Record<`labels.${keyof TimedTraceLabels}`, FieldSpec>>

/**
 * `--dataset-name timed_trace`: a Mooncake-style trace replayed at its timestamps (`selfTimed:
 * false` is `--no-self-timed`), or by `load.trace()`, which scales its seconds per trace unit.
 */
export const timedTraceDataset = defineDataset<TimedTraceDatasetConfig, TimedTraceDatasetOptions>({
  kind: 'timed_trace',
  aliases: ['timed-trace'],
  summary: 'a Mooncake-style trace replayed at its timestamps',
  datasetName: 'timed_trace',
  builder: 'timedTrace',
  fields: {
    path: PATH_FIELD,
    numPrompts: NUM_PROMPTS_FIELD,
    chunkHashSize: f(CHUNK_HASH_SIZE.name),
    secMultiplier: f(SEC_MULTIPLIER.name),
    'labels.timestamp': f(TIMED_TRACE_LABEL_FLAGS.timestamp),
    'labels.inputLength': f(TIMED_TRACE_LABEL_FLAGS.inputLength),
    'labels.outputLength': f(TIMED_TRACE_LABEL_FLAGS.outputLength),
    'labels.hashIds': f(TIMED_TRACE_LABEL_FLAGS.hashIds),
    selfTimed: f(NO_SELF_TIMED.name, 'offSwitch'),
  } satisfies TimedTraceFields,
  flags: [CHUNK_HASH_SIZE, SEC_MULTIPLIER, ...LABEL_ROWS, SELF_TIMED, NO_SELF_TIMED],
  resolve: resolveTimedTrace,
  generate: generateTimedTrace,
  sendOffsetsS: traceOffsetsS,
  dsl: {
    words: [['pass --no-self-timed', 'set dataset.selfTimed: false']],
    traceReplay: {
      refuse: (options) =>
        options.selfTimed === false
          ? {
              path: 'dataset.selfTimed',
              message:
                'is false, but load.trace() sends each request at its trace timestamp; drop selfTimed: false or use another load',
            }
          : undefined,
      scale: (config, timeScale) => ({ ...config, secMultiplier: config.secMultiplier * timeScale }),
    },
  },
})

/** Backends that send `/v1/completions` bodies, which can carry token-id prompts. */
const COMPLETIONS_BACKENDS: readonly BackendName[] = ['vllm', 'openai']

function resolveTimedTrace(read: Reader, context: DatasetFlagContext): TimedTraceDatasetConfig {
  const { issues } = context
  needsTokenizer('timed_trace', context)
  const path = requirePath(read, 'timed_trace', 'a JSONL trace', issues)
  if (!COMPLETIONS_BACKENDS.includes(context.backend)) {
    issues.push({
      path: '--backend',
      message: `must be a completions backend (vllm or openai) with --dataset-name timed_trace: it sends token-id prompts (got ${context.backend})`,
    })
  }
  const secMultiplier = read.number(SEC_MULTIPLIER.name) ?? DEFAULT_TIMED_TRACE.secMultiplier
  if (!(secMultiplier > 0))
    issues.push({
      path: '--timed-trace-sec-multiplier',
      message: `must be a finite number > 0 (got ${secMultiplier})`,
    })
  const labels = { ...DEFAULT_TIMED_TRACE_LABELS }
  for (const key of Object.keys(labels) as Array<keyof TimedTraceLabels>) {
    const flag = TIMED_TRACE_LABEL_FLAGS[key]
    const value = read.string(flag)
    if (value === '') issues.push({ path: flag, message: 'must be a non-empty field name' })
    else if (value !== undefined) labels[key] = value
  }
  const noSelfTimed = read.bool(NO_SELF_TIMED.name)
  if (noSelfTimed && read.bool(SELF_TIMED.name))
    issues.push({ path: '--self-timed', message: 'and --no-self-timed cannot both be given' })
  const selfTimed = !noSelfTimed
  if (selfTimed) rejectComputedSchedule(read, issues)
  return {
    kind: 'timed_trace',
    path,
    chunkHashSize: read.int(CHUNK_HASH_SIZE.name, 1) ?? DEFAULT_TIMED_TRACE.chunkHashSize,
    secMultiplier,
    labels,
    selfTimed,
  }
}

// As the Rust port (datasets/timed_trace.rs): under trace-driven timing the schedule flags would be silently ignored, so they are errors.
function rejectComputedSchedule(read: Reader, issues: ConfigIssue[]): void {
  const hint =
    'has no effect under trace-driven timing (timed_trace sends each request at its trace timestamp); pass --no-self-timed to use it'
  const rate = read.string('--request-rate')
  if (rate !== undefined && !/^\+?inf(inity)?$/i.test(rate.trim()))
    issues.push({ path: '--request-rate', message: hint })
  const burstiness = read.string('--burstiness')
  if (burstiness !== undefined && Number(burstiness) !== 1)
    issues.push({ path: '--burstiness', message: hint })
  if (read.string('--ramp-up-strategy') !== undefined)
    issues.push({ path: '--ramp-up-strategy', message: hint })
}

/** One trace row as read. */
export interface TraceRow {
  line: number
  timestamp: number
  inputLength: number
  outputLength: number
  hashIds: bigint[]
}

/**
 * The `timed_trace` dataset (Rust: datasets/timed_trace.rs; Python: `TimedTraceDataset`). Rows are read in file order
 * until `numPrompts` (no shuffle, no oversampling). Each hash id stands for a chunk of
 * `min(remaining, chunkHashSize)` tokens drawn from the allowed ids by an RNG seeded from
 * `(hashId × 0x9E3779B97F4A7C15) XOR size`, so rows sharing hash ids share byte-identical
 * prefixes in every run and process (Python's salted `hash()` does not). Too few hash ids give a
 * shorter prompt. Prompts are sent as token ids; `prompt` holds their decoded text.
 * Self-timed, each request carries `timestampS = timestamp × secMultiplier` and the requests are
 * ordered by it (stable), as Python's trace replay sorts them.
 */
export async function generateTimedTrace(
  config: TimedTraceDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const { tokenizer } = context
  const rows = (await readJsonlRows(NAME, config.path, { limit: context.numPrompts })).map(
    ({ line, value }) => readTraceRow(config.path, line, value, config.labels),
  )
  if (rows.length === 0) throw new DatasetError(`${NAME}: ${config.path} has no rows`)
  const allowed = tokenizer.allowedTokenIds()
  if (allowed.length === 0)
    throw new DatasetError(`${NAME}: tokenizer "${tokenizer.id}" has no usable token ids`)
  const chunks = new Map<string, number[]>()
  const requests: SampleRequest[] = []
  for (const row of rows) {
    const ids = traceTokenIds(row, config.chunkHashSize, allowed, chunks)
    const prompt = await tokenizer.decode(ids, { skipSpecialTokens: true })
    requests.push({
      prompt,
      promptTokenIds: ids,
      promptLen: ids.length,
      expectedOutputLen: row.outputLength,
      ...(config.selfTimed ? { timestampS: row.timestamp * config.secMultiplier } : {}),
    })
  }
  if (config.selfTimed) requests.sort((a, b) => a.timestampS! - b.timestampS!)
  return requests
}

/**
 * Offsets (seconds from the run start) of self-timed requests: each `timestampS` minus the earliest,
 * as Python's replay normalises them. Undefined unless every request carries a timestamp.
 */
export function traceOffsetsS(samples: readonly SampleRequest[]): number[] | undefined {
  if (samples.length === 0 || samples.some((s) => s.timestampS === undefined)) return undefined
  const first = Math.min(...samples.map((s) => s.timestampS!))
  return samples.map((s) => s.timestampS! - first)
}

/** The prompt ids of one row: one chunk per hash id until `inputLength` tokens. */
export function traceTokenIds(
  row: Pick<TraceRow, 'inputLength' | 'hashIds'>,
  chunkHashSize: number,
  allowed: readonly number[],
  memo: Map<string, number[]> = new Map(),
): number[] {
  const ids: number[] = []
  for (const hashId of row.hashIds) {
    const size = Math.min(row.inputLength - ids.length, chunkHashSize)
    if (size <= 0) break
    const key = `${hashId}:${size}`
    let chunk = memo.get(key)
    if (chunk === undefined) {
      const rng = createRng(chunkSeed(hashId, size))
      chunk = Array.from({ length: size }, () => allowed[rng.int(0, allowed.length - 1)]!)
      memo.set(key, chunk)
    }
    ids.push(...chunk)
  }
  return ids
}

/** `(hashId × golden) XOR size` in 64 bits (wrapping), folded to the 32 bits `createRng` mixes. */
function chunkSeed(hashId: bigint, size: number): number {
  const h = ((hashId * HASH_SEED_MULTIPLIER) & MASK_64) ^ BigInt(size)
  return Number((h ^ (h >> 32n)) & 0xffff_ffffn)
}

function readTraceRow(
  path: string,
  line: number,
  value: Record<string, unknown>,
  labels: TimedTraceLabels,
): TraceRow {
  const need = (key: keyof TimedTraceLabels): unknown => {
    const field = labels[key]
    if (!(field in value)) {
      throw fieldError(
        NAME,
        path,
        line,
        field,
        `is missing (set its name with ${TIMED_TRACE_LABEL_FLAGS[key]})`,
      )
    }
    return value[field]
  }
  const count = (key: 'inputLength' | 'outputLength'): number => {
    const v = need(key)
    if (!(Number.isInteger(v) && (v as number) >= 0))
      throw fieldError(
        NAME,
        path,
        line,
        labels[key],
        `must be a non-negative integer (got ${JSON.stringify(v)})`,
      )
    return v as number
  }
  const timestamp = need('timestamp')
  // A trace's timestamps count from its start: a negative one is a broken trace, not an early request.
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || timestamp < 0)
    throw fieldError(
      NAME,
      path,
      line,
      labels.timestamp,
      `must be a non-negative number (got ${JSON.stringify(timestamp)})`,
    )
  const rawHashes = labels.hashIds in value ? value[labels.hashIds] : []
  if (!Array.isArray(rawHashes))
    throw fieldError(
      NAME,
      path,
      line,
      labels.hashIds,
      `must be an array of integers (got ${typeName(rawHashes)})`,
    )
  const hashIds = rawHashes.map((h) => {
    if (!(Number.isSafeInteger(h) && (h as number) >= 0))
      throw fieldError(
        NAME,
        path,
        line,
        labels.hashIds,
        `must hold non-negative integers (got ${JSON.stringify(h)})`,
      )
    return BigInt(h as number)
  })
  return { line, timestamp, inputLength: count('inputLength'), outputLength: count('outputLength'), hashIds }
}
