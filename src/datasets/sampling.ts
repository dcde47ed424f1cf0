import { DatasetError } from '../errors.ts'
import { createRng } from '../rng.ts'
import { DATASET_FILE_LIMIT_ENV, datasetFileLimitsFrom, readDatasetText } from './dataset-file.ts'

/** One parsed JSONL row and its 1-based line number in the file. */
export interface JsonlRow {
  line: number
  value: Record<string, unknown>
}

/** Shuffle and oversampling switches of the file datasets (`--disable-shuffle`, `--no-oversample`). */
export interface SampleOrder {
  disableShuffle: boolean
  noOversample: boolean
}

/** Seed offset of the oversampling draws, so they do not repeat the shuffle's stream. */
const OVERSAMPLE_SEED_OFFSET = 0x05a3

/**
 * Reads a whole dataset file; a missing, unreadable, non-regular or oversized file names the file
 * and the flag that set it (dataset-file.ts).
 */
export async function readDatasetFile(
  dataset: string,
  path: string,
  flag = '--dataset-path',
): Promise<string> {
  return readDatasetText(dataset, path, flag)
}

/**
 * Parses JSON Lines: one object per non-blank line. Blank lines are skipped but still count for
 * line numbers (Rust: the same). A line that is not a JSON object throws a `DatasetError` naming
 * the file and the line.
 */
export function parseJsonl(dataset: string, path: string, text: string, limit = Infinity): JsonlRow[] {
  const rows: JsonlRow[] = []
  const lines = text.split('\n')
  const { maxLineBytes } = datasetFileLimitsFrom().limits
  for (let i = 0; i < lines.length && rows.length < limit; i++) {
    const raw = lines[i]!.trim()
    if (raw === '') continue
    // Characters, not bytes: a line over the limit in characters is over it in bytes too.
    if (raw.length > maxLineBytes) {
      throw new DatasetError(
        `${dataset}: ${path}:${i + 1}: the line is longer than ${maxLineBytes} bytes; raise ${DATASET_FILE_LIMIT_ENV.maxLineBytes} if rows this long are expected`,
      )
    }
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch (error) {
      throw new DatasetError(`${dataset}: ${path}:${i + 1}: not valid JSON (${(error as Error).message})`, {
        cause: error,
      })
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new DatasetError(`${dataset}: ${path}:${i + 1}: each line must be a JSON object`)
    rows.push({ line: i + 1, value: value as Record<string, unknown> })
  }
  return rows
}

/** A field error of one row: `custom: data.jsonl:3: field "prompt" is missing`. */
export function fieldError(
  dataset: string,
  path: string,
  line: number,
  field: string,
  problem: string,
): DatasetError {
  return new DatasetError(`${dataset}: ${path}:${line}: field "${field}" ${problem}`)
}

/** Python's `type(x).__name__`-like name for messages. */
export function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** Seeded shuffle unless `disableShuffle`; returns a new array. */
export function shuffled<T>(items: readonly T[], seed: number, disableShuffle: boolean): T[] {
  const out = items.slice()
  return disableShuffle ? out : createRng(seed).shuffle(out)
}

/**
 * Fills up to `n` by repeating entries drawn with a seeded RNG (Python: `random.choices`; Rust:
 * `oversample`), unless `noOversample`; never truncates. Repeats are the same objects: requests are
 * read-only downstream.
 */
export function oversample<T>(items: readonly T[], n: number, seed: number, noOversample: boolean): T[] {
  const out = items.slice()
  if (noOversample || out.length >= n || out.length === 0) return out
  const rng = createRng(seed + OVERSAMPLE_SEED_OFFSET + items.length)
  while (out.length < n) out.push(items[rng.int(0, items.length - 1)]!)
  return out
}

/** Rust `--max-model-len`: keep requests whose prompt plus output fits (the bound is inclusive). */
export function filterByMaxModelLen<T extends { promptLen: number; expectedOutputLen: number }>(
  requests: readonly T[],
  maxModelLen: number,
): { kept: T[]; dropped: number } {
  const kept = requests.filter((r) => r.promptLen + r.expectedOutputLen <= maxModelLen)
  return { kept, dropped: requests.length - kept.length }
}
