/**
 * The segment file of a `servebench serve --segment i/n` run: built from the run's outcome and
 * written next to where its result goes, whether or not `--save-result` is set.
 */
import type { BenchConfig } from '../config/bench-config.ts'
import { resultPath, writeSegmentFile } from '../report/write.ts'
import type { RunOutcome } from '../runner/run-benchmark.ts'
import { segmentFileOf } from '../runner/segment-file-of.ts'

/** Writes the segment file when the run is a segment; returns its path, else undefined. */
export async function writeSegmentOutput(
  config: BenchConfig,
  outcome: RunOutcome,
  naming: { label?: string; maxConcurrency?: number },
): Promise<string | undefined> {
  const file = segmentFileOf(config, outcome)
  if (!file) return undefined
  return writeSegmentFile(file, resultPath(outcome.result, config.output, naming))
}
