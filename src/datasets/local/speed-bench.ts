import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { type DatasetFlagContext, needsTokenizer, requirePath } from '../../config/dataset-flag-checks.ts'
import { f } from '../../config/dsl-fields.ts'
import type { SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { DatasetError } from '../../errors.ts'
import { type DatasetContext, defineDataset, flagRow } from '../dataset-module.ts'
import {
  fieldError,
  type JsonlRow,
  oversample,
  parseJsonl,
  readDatasetFile,
  shuffled,
  typeName,
} from '../sampling.ts'
import {
  ORDER_FLAGS,
  type OrderConfig,
  type OrderOptions,
  orderedFileFields,
  readOrder,
} from '../shared-flags.ts'

export type SpeedBenchSubset =
  | 'qualitative'
  | 'throughput_1k'
  | 'throughput_2k'
  | 'throughput_8k'
  | 'throughput_16k'
  | 'throughput_32k'

/** `--dataset-name speed_bench`: a SPEED-Bench directory of `{subset}.jsonl` files (or one file). */
export interface SpeedBenchDatasetConfig extends OrderConfig {
  kind: 'speed_bench'
  path: string
  subset: SpeedBenchSubset
  outputLen: number
  category?: string
  /** `--speed-bench-max-input-len` (Rust): longer prompts keep the text of their first this many tokens. */
  maxInputLen?: number
}

/** Options of `datasets.speedBench` (`--dataset-name speed_bench`). */
export interface SpeedBenchDatasetOptions extends OrderOptions {
  /** A directory of `{subset}.jsonl` files, or one such file. */
  path: string
  /** @default 'qualitative' */
  subset?: SpeedBenchSubset
  /** Output tokens per request. @default 4096 */
  outputLen?: number
  /** Keep only this category (exact match). @default every category */
  category?: string
  /** Cut longer prompts to the text of their first this many tokens (`--speed-bench-max-input-len`; Rust). @default no limit */
  maxInputLen?: number
}

export const SPEED_BENCH_SUBSETS: readonly SpeedBenchSubset[] = [
  'qualitative',
  'throughput_1k',
  'throughput_2k',
  'throughput_8k',
  'throughput_16k',
  'throughput_32k',
]

/** Upstream defaults (Rust `cli.rs`). */
export const DEFAULT_SPEED_BENCH = { subset: 'qualitative', outputLen: 4096 } as const

const SUBSET = flagRow(
  '--speed-bench-dataset-subset',
  'string',
  'speed_bench: which {subset}.jsonl of the --dataset-path directory.',
  { aliases: ['--speed-bench-config'], default: DEFAULT_SPEED_BENCH.subset, choices: SPEED_BENCH_SUBSETS },
)
const OUTPUT_LEN = flagRow('--speed-bench-output-len', 'int', 'speed_bench: output tokens per request.', {
  default: String(DEFAULT_SPEED_BENCH.outputLen),
})
const CATEGORY = flagRow(
  '--speed-bench-category',
  'string',
  'speed_bench: keep only this category (exact match).',
)
const MAX_INPUT_LEN = flagRow(
  '--speed-bench-max-input-len',
  'int',
  'speed_bench: cut longer prompts to the text of their first N tokens (e.g. throughput_16k cut to 10240).',
  { parity: 'rust' },
)

/** `--dataset-name speed_bench`: NVIDIA SPEED-Bench `{subset}.jsonl`, prepared locally. */
export const speedBenchDataset = defineDataset<SpeedBenchDatasetConfig, SpeedBenchDatasetOptions>({
  kind: 'speed_bench',
  aliases: ['speed-bench'],
  summary: 'NVIDIA SPEED-Bench, prepared locally',
  datasetName: 'speed_bench',
  builder: 'speedBench',
  fields: orderedFileFields<SpeedBenchDatasetOptions>({
    subset: f(SUBSET.name),
    outputLen: f(OUTPUT_LEN.name),
    category: f(CATEGORY.name),
    maxInputLen: f(MAX_INPUT_LEN.name),
  }),
  flags: [SUBSET, OUTPUT_LEN, CATEGORY, MAX_INPUT_LEN, ...ORDER_FLAGS],
  resolve: resolveSpeedBench,
  generate: generateSpeedBench,
})

function resolveSpeedBench(read: Reader, context: DatasetFlagContext): SpeedBenchDatasetConfig {
  needsTokenizer('speed_bench', context)
  const category = read.string(CATEGORY.name)
  const maxInputLen = read.int(MAX_INPUT_LEN.name, 1)
  return {
    kind: 'speed_bench',
    path: requirePath(
      read,
      'speed_bench',
      'a directory of {subset}.jsonl files, or one such file',
      context.issues,
    ),
    subset: read.choice(SUBSET.name, SPEED_BENCH_SUBSETS) ?? DEFAULT_SPEED_BENCH.subset,
    outputLen: read.int(OUTPUT_LEN.name, 1) ?? DEFAULT_SPEED_BENCH.outputLen,
    ...(category !== undefined ? { category } : {}),
    ...(maxInputLen !== undefined ? { maxInputLen } : {}),
    ...readOrder(read),
  }
}

/** SPEED-Bench publishes this text in place of prompts it may not redistribute; such rows are skipped. */
export const SPEED_BENCH_PLACEHOLDER = 'FULL BENCHMARK DATA SHOULD BE FETCHED'

/** Prompts shorter than this many tokens are skipped (Rust, as ShareGPT's minimum). */
const MIN_PROMPT_TOKENS = 4

/**
 * The `speed_bench` dataset (Rust: datasets/speed_bench.rs; Python: `SpeedBench`). `path` is a directory holding
 * `{subset}.jsonl` (what NVIDIA's prepare script writes) or one such file. Rows are
 * `{"turns": [str, ...], "category"?: str, "multiturn"?: bool}`; placeholder rows, multi-turn
 * rows and, with `category`, rows of other categories are skipped. The prompt is the first turn.
 */
export async function generateSpeedBench(
  config: SpeedBenchDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const path = await speedBenchFile(config.path, config.subset)
  const text = await readDatasetFile('speed_bench', path)
  return sampleFirstTurns('speed_bench', path, parseRows('speed_bench', path, text), config, context)
}

/** A directory resolves to `{dir}/{subset}.jsonl`; a file is used as it is. */
export async function speedBenchFile(path: string, subset: SpeedBenchSubset): Promise<string> {
  const info = await stat(path).catch(() => undefined)
  return info?.isDirectory() ? join(path, `${subset}.jsonl`) : path
}

/** JSONL, or a JSON array of row objects (the shape of the Rust download cache). */
function parseRows(dataset: string, path: string, text: string): JsonlRow[] {
  if (!text.trimStart().startsWith('[')) return parseJsonl(dataset, path, text)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new DatasetError(`${dataset}: ${path}: not valid JSON (${(error as Error).message})`, {
      cause: error,
    })
  }
  return (value as unknown[]).map((row, i) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row))
      throw new DatasetError(`${dataset}: ${path}: item ${i} must be a JSON object`)
    return { line: i + 1, value: row as Record<string, unknown> }
  })
}

/** What `sampleFirstTurns` needs of a dataset config. */
export interface FirstTurnOptions extends OrderConfig {
  outputLen: number
  category?: string
  /** speed_bench only: longer prompts keep the text of their first this many tokens. */
  maxInputLen?: number
}

/**
 * Shared by speed_bench and spec_bench: the prompt is `turns[0]`; rows are filtered, shuffled
 * with the seed unless disabled, prompts under 4 tokens skipped, then oversampled.
 */
export async function sampleFirstTurns(
  dataset: string,
  path: string,
  rows: readonly JsonlRow[],
  options: FirstTurnOptions,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const categories = new Set<string>()
  const usable: string[] = []
  for (const { line, value } of rows) {
    const turns = value.turns
    if (!Array.isArray(turns))
      throw fieldError(dataset, path, line, 'turns', `must be an array of strings (got ${typeName(turns)})`)
    const first = turns[0]
    if (first !== undefined && typeof first !== 'string')
      throw fieldError(
        dataset,
        path,
        line,
        'turns',
        `must be an array of strings (got ${typeName(first)} items)`,
      )
    const category = value.category
    if (category !== undefined && typeof category !== 'string')
      throw fieldError(dataset, path, line, 'category', `must be a string (got ${typeName(category)})`)
    if (typeof category === 'string') categories.add(category)
    if (!first || first.startsWith(SPEED_BENCH_PLACEHOLDER) || value.multiturn === true) continue
    if (options.category !== undefined && category !== options.category) continue
    usable.push(first)
  }
  if (usable.length === 0) {
    const known = [...categories].sort().join(', ') || 'none'
    throw new DatasetError(
      options.category !== undefined
        ? `${dataset}: ${path} has no usable rows of category "${options.category}"; its categories are ${known}`
        : `${dataset}: ${path} has no usable rows`,
    )
  }
  const requests: SampleRequest[] = []
  for (const prompt of shuffled(usable, context.seed, options.disableShuffle)) {
    if (requests.length >= context.numPrompts) break
    const ids = await context.tokenizer.encode(prompt)
    if (ids.length < MIN_PROMPT_TOKENS) continue
    const sent = await truncated(prompt, ids, options.maxInputLen, context)
    requests.push({ ...sent, expectedOutputLen: options.outputLen })
  }
  if (requests.length === 0)
    throw new DatasetError(`${dataset}: every prompt in ${path} has fewer than ${MIN_PROMPT_TOKENS} tokens`)
  return oversample(requests, context.numPrompts, context.seed, options.noOversample)
}

/**
 * Rust (`load_speed_bench_dataset`): a prompt longer than `maxInputLen` tokens is sent as the text
 * of its first `maxInputLen` tokens. Deviation: `promptLen` is that text re-encoded, the exact
 * count the server sees (Rust reports `maxInputLen`; the two differ only where decoding merges).
 */
async function truncated(
  prompt: string,
  ids: readonly number[],
  maxInputLen: number | undefined,
  context: DatasetContext,
): Promise<{ prompt: string; promptLen: number }> {
  if (maxInputLen === undefined || ids.length <= maxInputLen) return { prompt, promptLen: ids.length }
  const text = await context.tokenizer.decode(ids.slice(0, maxInputLen), { skipSpecialTokens: true })
  return { prompt: text, promptLen: (await context.tokenizer.encode(text)).length }
}
