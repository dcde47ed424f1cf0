/**
 * The result object and console block of a pooling run (embeddings, pooling, rerank): Python's
 * `EmbedBenchmarkMetrics` branch of `benchmark()`, which writes a different dict from generation
 * runs and prints fewer rows. Pure, like result-json.ts and console.ts.
 * Python: benchmark and calculate_metrics_for_embeddings (vllm/benchmarks/serve.py).
 */
import type { PercentileMetric } from '../../config/bench-config.ts'
import type { RequestRecord } from '../../config/records.ts'
import type { PoolingMetrics } from '../../metrics/calculate-pooling.ts'
import { center, floatRow, probeSection, row, statisticsSections } from '../console/console.ts'
import { type ExtraResultKeys, type ResultSetup, setupKeys } from './result-json.ts'
import type { ResultSetupKeys } from './result-types.ts'

/** A pooling run's result, keyed and ordered as Python writes it. There is no `failed` key. */
export interface PoolingBenchResult extends ResultSetupKeys {
  duration: number
  completed: number
  total_input_tokens: number
  total_input_sequences: number
  request_throughput: number
  input_sequence_throughput: number
  total_token_throughput: number
  input_lens: number[]
  latencies: number[]
  queue_times: number[]
  errors: string[]
  /** `mean_e2el_ms`, `p99_e2el_ms`, metadata keys, … */
  [key: string]: unknown
}

/**
 * Setup, metadata and traffic keys as for generation, then `duration, completed,
 * total_input_tokens, total_input_sequences, request_throughput, input_sequence_throughput,
 * total_token_throughput, input_lens, latencies, queue_times, errors`, then `extra`, then the
 * statistics (E2EL by default).
 */
export function buildPoolingResult(
  setup: ResultSetup,
  metrics: PoolingMetrics,
  records: readonly RequestRecord[],
  extra: ExtraResultKeys = [],
): PoolingBenchResult {
  const out = setupKeys(setup)
  out.duration = metrics.durationS
  out.completed = metrics.completed
  out.total_input_tokens = metrics.totalInputTokens
  out.total_input_sequences = metrics.totalInputSequences
  out.request_throughput = metrics.requestThroughput
  out.input_sequence_throughput = metrics.inputSequenceThroughput
  out.total_token_throughput = metrics.totalTokenThroughput
  out.input_lens = records.map((r) => r.promptLen)
  out.latencies = records.map((r) => r.latencyS)
  out.queue_times = records.map((r) => r.queueTimeS)
  out.errors = records.map((r) => r.error)
  for (const [key, value] of extra) out[key] = value
  for (const [key, value] of metrics.statistics) out[key] = value
  return out as PoolingBenchResult
}

/** What decides the rows of {@link formatPoolingResultTable}. */
export interface PoolingTableOptions {
  percentileMetrics: PercentileMetric[]
  metricPercentiles: number[]
  /** Printed, though the result has no `failed` key. */
  failed: number
}

/**
 * The `Serving Benchmark Result` block of a pooling run: no output-token rows, an
 * `Input throughput (inputs/s):` row after the request throughput, and the E2EL section.
 */
export function formatPoolingResultTable(result: PoolingBenchResult, options: PoolingTableOptions): string {
  const lines: string[] = [center(' Serving Benchmark Result ', '=')]
  lines.push(row('Successful requests:', result.completed))
  lines.push(row('Failed requests:', options.failed))
  if (result.max_concurrency !== null) lines.push(row('Maximum request concurrency:', result.max_concurrency))
  if (result.request_rate !== 'inf')
    lines.push(floatRow('Request rate configured (RPS):', result.request_rate))
  lines.push(floatRow('Benchmark duration (s):', result.duration))
  lines.push(row('Total input tokens:', result.total_input_tokens))
  lines.push(floatRow('Request throughput (req/s):', result.request_throughput))
  lines.push(floatRow('Input throughput (inputs/s):', result.input_sequence_throughput))
  lines.push(floatRow('Total token throughput (tok/s):', result.total_token_throughput))
  lines.push(...probeSection(result))
  // No token stream: the sections of the families that need one are left out, as without a tokenizer.
  lines.push(
    ...statisticsSections(result, {
      percentileMetrics: options.percentileMetrics,
      metricPercentiles: options.metricPercentiles,
      hasTokenizer: false,
    }),
  )
  lines.push('='.repeat(50))
  return `${lines.join('\n')}\n`
}
