import type { Reader } from '../../config/resolve.ts'
import { type ConfigIssue, DatasetError } from '../../errors.ts'
import { readJsonlRows } from '../dataset-file.ts'
import { flagRow } from '../dataset-module.ts'
import { fieldError, type JsonlRow } from '../sampling.ts'

/** Python's `--custom-output-len` default. */
export const DEFAULT_CUSTOM_OUTPUT_LEN = 256

export const CUSTOM_OUTPUT_LEN = flagRow(
  '--custom-output-len',
  'int',
  "custom, custom_image: output tokens per request; custom: -1 takes each line's output_tokens.",
  { default: String(DEFAULT_CUSTOM_OUTPUT_LEN) },
)

/**
 * `--output-len`, else `--custom-output-len`, else 256. With `perLine`, -1 (each line's
 * `output_tokens`) is allowed and 0 is an issue; without it the value must be at least 1.
 */
export function readCustomOutputLen(read: Reader, issues: ConfigIssue[], perLine: boolean): number {
  const outputLen =
    read.int('--output-len', 1) ??
    read.int(CUSTOM_OUTPUT_LEN.name, perLine ? -1 : 1) ??
    DEFAULT_CUSTOM_OUTPUT_LEN
  if (perLine && outputLen === 0)
    issues.push({
      path: CUSTOM_OUTPUT_LEN.name,
      message: "must be -1 (each line's output_tokens) or at least 1 (got 0)",
    })
  return outputLen
}

/** `--custom-output-len -1`: take each line's `output_tokens`. */
export const PER_LINE_OUTPUT_LEN = -1

/**
 * The rows of a custom dataset's `--dataset-path` (`custom`, `custom_image`, `custom_audio`): the
 * file must be JSON Lines with at least one line.
 */
export async function readCustomJsonl(dataset: string, path: string): Promise<JsonlRow[]> {
  if (!path.endsWith('.jsonl'))
    throw new DatasetError(`${dataset}: --dataset-path must be a .jsonl file (got ${path})`)
  const rows = await readJsonlRows(dataset, path)
  if (rows.length === 0) throw new DatasetError(`${dataset}: ${path} has no lines`)
  return rows
}

/**
 * A line's output length: its `output_tokens` when `outputLen` is {@link PER_LINE_OUTPUT_LEN},
 * else `outputLen`. A present `output_tokens` must be an integer of at least 1 either way.
 */
export function lineOutputLen(dataset: string, path: string, row: JsonlRow, outputLen: number): number {
  const tokens = row.value.output_tokens
  if (tokens !== undefined && !(Number.isInteger(tokens) && (tokens as number) >= 1)) {
    throw fieldError(
      dataset,
      path,
      row.line,
      'output_tokens',
      `must be an integer of at least 1 (got ${JSON.stringify(tokens)})`,
    )
  }
  if (outputLen !== PER_LINE_OUTPUT_LEN) return outputLen
  if (tokens === undefined) {
    throw fieldError(
      dataset,
      path,
      row.line,
      'output_tokens',
      'is missing (needed by --custom-output-len -1)',
    )
  }
  return tokens as number
}
