import type { BenchConfig } from '../config/bench-config.ts'
import { configFingerprint } from '../config/fingerprint.ts'
import { buildSegmentFile, type SegmentFile } from '../report/result/segment-file.ts'
import { resultSetup } from './result-setup.ts'
import type { RunOutcome } from './run-types.ts'

/**
 * The segment file of a `--segment i/n` run (the CLI and `SERVEBENCH_SEGMENT` suites write it);
 * undefined when the run is not a segment. `openLoop` is read from the result: only open loops
 * carry `intended_delays`.
 */
export function segmentFileOf(config: BenchConfig, outcome: RunOutcome): SegmentFile | undefined {
  const { segment } = config
  if (!segment || !outcome.clock || !outcome.scheduleIndexes) return undefined
  const { result } = outcome
  const setup = resultSetup(config, {
    date: String(result.date),
    modelId: String(result.model_id),
    tokenizerId: result.tokenizer_id === null ? null : String(result.tokenizer_id),
    numPrompts: config.numPrompts,
  })
  return buildSegmentFile({
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
      ...(config.steadyState && 'steady_state' in result ? { steadyState: config.steadyState } : {}),
    },
    ...(outcome.clientHealth ? { clientHealth: outcome.clientHealth } : {}),
    records: outcome.records,
    scheduleIndexes: outcome.scheduleIndexes,
  })
}
