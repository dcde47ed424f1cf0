import type { TimedTraceDatasetConfig, TimedTraceLabels } from '../../config/bench-config.ts'
import type { SampleRequest } from '../../config/records.ts'
import { DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import type { DatasetContext } from '../index.ts'
import { fieldError, parseJsonl, readDatasetFile, typeName } from '../sampling.ts'

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

/** One trace row as read. */
export interface TraceRow {
  line: number
  timestamp: number
  inputLength: number
  outputLength: number
  hashIds: bigint[]
}

/**
 * The `timed_trace` dataset (Rust §4.10; Python: `TimedTraceDataset`). Rows are read in file order
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
  const text = await readDatasetFile(NAME, config.path)
  const rows = parseJsonl(NAME, config.path, text, context.numPrompts).map(({ line, value }) =>
    readTraceRow(config.path, line, value, config.labels),
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
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp))
    throw fieldError(
      NAME,
      path,
      line,
      labels.timestamp,
      `must be a number (got ${JSON.stringify(timestamp)})`,
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
