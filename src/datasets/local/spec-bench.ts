import type { SpecBenchDatasetConfig } from '../../config/bench-config.ts'
import type { SampleRequest } from '../../config/records.ts'
import type { DatasetContext } from '../index.ts'
import { parseJsonl, readDatasetFile } from '../sampling.ts'
import { sampleFirstTurns } from './speed-bench.ts'

/**
 * The `spec_bench` dataset (Python: `SpecBench`): Spec-Bench's `question.jsonl`, rows
 * `{"question_id", "category", "turns": [str, ...]}`. The prompt is the first turn; `category`
 * keeps one category; lengths, shuffle and oversampling as speed_bench.
 */
export async function generateSpecBench(
  config: SpecBenchDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const rows = parseJsonl('spec_bench', config.path, await readDatasetFile('spec_bench', config.path))
  return sampleFirstTurns('spec_bench', config.path, rows, config, context)
}
