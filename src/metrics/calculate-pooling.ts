import type { PercentileMetric } from '../config/bench-config.ts'
import type { RequestRecord } from '../config/records.ts'
import { familyStatistics } from './calculate.ts'

/** What {@link calculatePoolingMetrics} needs besides the records. */
export interface PoolingMetricsOptions {
  /** Wall time of the main run. */
  durationS: number
  /** `--percentile-metrics`; only the families a pooling run has (see {@link POOLING_FAMILIES}) get keys. */
  percentileMetrics: PercentileMetric[]
  /** `--metric-percentiles`. */
  metricPercentiles: number[]
  /** `--max-concurrency`: `client_queue_time` statistics exist only when it is set. */
  maxConcurrency?: number
  /** `e2el_including_client_queue` statistics exist only for a finite `--request-rate`. */
  requestRateFinite: boolean
}

/** Statistics families of a pooling run: there is no token stream, so no TTFT, TPOT or ITL. */
export const POOLING_FAMILIES: readonly PercentileMetric[] = [
  'e2el',
  'client_queue_time',
  'e2el_including_client_queue',
]

/** Aggregates of a pooling run: Python's `EmbedBenchmarkMetrics` with the statistics in output order. */
export interface PoolingMetrics {
  durationS: number
  completed: number
  /** Printed, never written: Python's pooling result has no `failed` key. */
  failed: number
  /** Σ promptLen (`usage.prompt_tokens` when the server reports it) over successful requests. */
  totalInputTokens: number
  /** Σ inputs per successful request (a batch counts its texts; rerank its documents). */
  totalInputSequences: number
  requestThroughput: number
  /** Inputs per second. */
  inputSequenceThroughput: number
  /** Input tokens per second: pooling has no output tokens. */
  totalTokenThroughput: number
  /** `mean_e2el_ms`, `median_e2el_ms`, `std_e2el_ms`, `p99_e2el_ms`, … (ms). */
  statistics: Array<[string, number]>
}

/**
 * Python's `calculate_metrics_for_embeddings` over records in dispatch order, failures included.
 * Python: calculate_metrics_for_embeddings (vllm/benchmarks/serve.py).
 */
export function calculatePoolingMetrics(
  records: readonly RequestRecord[],
  options: PoolingMetricsOptions,
): PoolingMetrics {
  const ok = records.filter((r) => r.success)
  const dur = options.durationS
  let totalInputTokens = 0
  let totalInputSequences = 0
  for (const r of ok) {
    totalInputTokens += r.promptLen
    totalInputSequences += r.numInputSequences ?? 1
  }
  const statistics = familyStatistics(ok, options, (family) => applies(family, options))
  return {
    durationS: dur,
    completed: ok.length,
    failed: records.length - ok.length,
    totalInputTokens,
    totalInputSequences,
    requestThroughput: ok.length / dur,
    inputSequenceThroughput: totalInputSequences / dur,
    totalTokenThroughput: totalInputTokens / dur,
    statistics,
  }
}

function applies(family: PercentileMetric, options: PoolingMetricsOptions): boolean {
  if (!POOLING_FAMILIES.includes(family)) return false
  if (family === 'client_queue_time') return options.maxConcurrency !== undefined
  if (family === 'e2el_including_client_queue')
    return options.maxConcurrency !== undefined && options.requestRateFinite
  return true
}
