import { type DatasetFlagContext, needsTokenizer, requirePath } from '../../config/dataset-flag-checks.ts'
import { f } from '../../config/dsl-fields.ts'
import type { SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { readJsonlRows } from '../dataset-file.ts'
import { type DatasetContext, defineDataset, flagRow } from '../dataset-module.ts'
import {
  ORDER_FLAGS,
  type OrderConfig,
  type OrderOptions,
  orderedFileFields,
  readOrder,
} from '../shared-flags.ts'
import { sampleFirstTurns } from './speed-bench.ts'

/** `--dataset-name spec_bench`: Spec-Bench `question.jsonl` (`turns`, `category`). */
export interface SpecBenchDatasetConfig extends OrderConfig {
  kind: 'spec_bench'
  path: string
  outputLen: number
  category?: string
}

/** Options of `datasets.specBench` (`--dataset-name spec_bench`). */
export interface SpecBenchDatasetOptions extends OrderOptions {
  /** Spec-Bench's `question.jsonl`. */
  path: string
  /** Output tokens per request. @default 256 */
  outputLen?: number
  /** Keep only this category. @default every category */
  category?: string
}

/** Python's `--spec-bench-output-len` default. */
export const DEFAULT_SPEC_BENCH_OUTPUT_LEN = 256

const OUTPUT_LEN = flagRow('--spec-bench-output-len', 'int', 'spec_bench: output tokens per request.', {
  default: String(DEFAULT_SPEC_BENCH_OUTPUT_LEN),
  parity: 'python',
})
const CATEGORY = flagRow('--spec-bench-category', 'string', 'spec_bench: keep only this category.', {
  parity: 'python',
})

/** `--dataset-name spec_bench`: the first turn of each row of Spec-Bench's `question.jsonl`. */
export const specBenchDataset = defineDataset<SpecBenchDatasetConfig, SpecBenchDatasetOptions>({
  kind: 'spec_bench',
  summary: "Spec-Bench's `question.jsonl`",
  datasetName: 'spec_bench',
  builder: 'specBench',
  fields: orderedFileFields<SpecBenchDatasetOptions>({
    outputLen: f(OUTPUT_LEN.name),
    category: f(CATEGORY.name),
  }),
  flags: [OUTPUT_LEN, CATEGORY, ...ORDER_FLAGS],
  resolve: resolveSpecBench,
  generate: generateSpecBench,
})

function resolveSpecBench(read: Reader, context: DatasetFlagContext): SpecBenchDatasetConfig {
  needsTokenizer('spec_bench', context)
  const category = read.string(CATEGORY.name)
  return {
    kind: 'spec_bench',
    path: requirePath(read, 'spec_bench', "Spec-Bench's question.jsonl", context.issues),
    outputLen: read.int(OUTPUT_LEN.name, 1) ?? DEFAULT_SPEC_BENCH_OUTPUT_LEN,
    ...(category !== undefined ? { category } : {}),
    ...readOrder(read),
  }
}

/**
 * The `spec_bench` dataset (Python: `SpecBench`): Spec-Bench's `question.jsonl`, rows
 * `{"question_id", "category", "turns": [str, ...]}`. The prompt is the first turn; `category`
 * keeps one category; lengths, shuffle and oversampling as speed_bench.
 */
export async function generateSpecBench(
  config: SpecBenchDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const rows = await readJsonlRows('spec_bench', config.path)
  return sampleFirstTurns('spec_bench', config.path, rows, config, context)
}
