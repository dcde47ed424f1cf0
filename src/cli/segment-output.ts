/**
 * The segment file of a `servebench serve --segment i/n` run: built from the run's outcome and
 * written next to where its result goes, whether or not `--save-result` is set.
 */
import type { BenchConfig } from '../config/bench-config.ts'
import { configFingerprint } from '../config/fingerprint.ts'
import { buildSegmentFile } from '../report/segment-file.ts'
import { resultPath, writeSegmentFile } from '../report/write.ts'
import { resultSetup } from '../runner/result-setup.ts'
import type { RunOutcome } from '../runner/run-benchmark.ts'

/** Writes the segment file when the run is a segment; returns its path, else undefined. */
export async function writeSegmentOutput(
  config: BenchConfig,
  outcome: RunOutcome,
  naming: { label?: string; maxConcurrency?: number },
): Promise<string | undefined> {
  const { segment } = config
  if (!segment || !outcome.clock || !outcome.scheduleIndexes) return undefined
  const { result } = outcome
  const setup = resultSetup(config, {
    date: String(result.date),
    modelId: String(result.model_id),
    tokenizerId: result.tokenizer_id === null ? null : String(result.tokenizer_id),
    numPrompts: config.numPrompts,
  })
  const file = buildSegmentFile({
    index: segment.index,
    count: segment.count,
    fingerprint: configFingerprint(config),
    clock: outcome.clock,
    ...(config.startAtEpochMs !== undefined ? { startAtEpochMs: config.startAtEpochMs } : {}),
    interrupted: outcome.interrupted,
    setup,
    metrics: {
      percentileMetrics: config.percentileMetrics,
      metricPercentiles: config.metricPercentiles,
      ...(config.goodput ? { goodput: config.goodput } : {}),
      hasTokenizer: !config.tokenizer.skipInit,
      ...(config.load.maxConcurrency ? { maxConcurrency: config.load.maxConcurrency } : {}),
      requestRateFinite: Number.isFinite(config.load.requestRate),
      openLoop: 'intended_delays' in result,
    },
    ...(outcome.clientHealth ? { clientHealth: outcome.clientHealth } : {}),
    records: outcome.records,
    scheduleIndexes: outcome.scheduleIndexes,
  })
  return writeSegmentFile(file, resultPath(result, config.output, naming))
}
