/**
 * The optional result keys beside the core metrics: probe figures, `rps_change_events`,
 * speculative decoding (Python names and order) and Rust's `steady_state` object. Pure.
 * Python: benchmark (vllm/benchmarks/serve.py); Rust: output/json.rs.
 */
import type { SpecDecodeStats } from '../../metrics/spec-decode.ts'
import type { SteadyStateMetrics } from '../../metrics/steady-state.ts'
import type { ExtraResultKeys } from './result-json.ts'

/** Probe loop outcome: latencies of the successful probes, in ms. */
export interface ProbeSummary {
  completed: number
  failed: number
  medianE2elMs: number
  p99E2elMs: number
  maxE2elMs: number
}

/** One `rps_change_events` entry: the integer rate reached and when (local ISO time, as Python). */
export interface RpsChangeEvent {
  rps: number
  timestamp: string
}

/** The keys Python inserts after `rtfx`, in its order: probe, rps_change_events, spec decode. */
export function extraResultKeys(parts: {
  probe?: ProbeSummary
  rpsChangeEvents?: RpsChangeEvent[]
  specDecode?: SpecDecodeStats
}): ExtraResultKeys {
  const keys: Array<readonly [string, unknown]> = []
  // Python writes probe keys only when at least one probe succeeded.
  if (parts.probe && parts.probe.completed > 0) {
    keys.push(
      ['probe_completed', parts.probe.completed],
      ['probe_failed', parts.probe.failed],
      ['probe_median_e2el_ms', parts.probe.medianE2elMs],
      ['probe_p99_e2el_ms', parts.probe.p99E2elMs],
      ['probe_max_e2el_ms', parts.probe.maxE2elMs],
    )
  }
  if (parts.rpsChangeEvents) keys.push(['rps_change_events', parts.rpsChangeEvents])
  if (parts.specDecode) keys.push(...specDecodeKeys(parts.specDecode))
  return keys
}

/** The six `spec_decode_*` keys. */
export function specDecodeKeys(stats: SpecDecodeStats): Array<readonly [string, unknown]> {
  return [
    ['spec_decode_acceptance_rate', stats.acceptanceRatePct],
    ['spec_decode_acceptance_length', stats.acceptanceLength],
    ['spec_decode_num_drafts', stats.numDrafts],
    ['spec_decode_draft_tokens', stats.draftTokens],
    ['spec_decode_accepted_tokens', stats.acceptedTokens],
    ['spec_decode_per_position_acceptance_rates', [...stats.perPositionAcceptanceRates]],
  ]
}

/** Rust's `steady_state` object (output/json.rs), or null when no window was found. */
export function steadyStateJson(metrics: SteadyStateMetrics | undefined): Record<string, unknown> | null {
  if (!metrics) return null
  const w = metrics.window
  return {
    window: {
      start_s: w.startS,
      end_s: w.endS,
      duration_s: w.durationS,
      target_concurrency: w.targetConcurrency,
      threshold: w.threshold,
      threshold_abs: w.thresholdAbs,
      observed_peak: w.observedPeak,
      requests_started_in_window: w.requestsStartedInWindow,
      requests_completed_in_window: w.requestsCompletedInWindow,
      requests_total: w.requestsTotal,
      warning: w.warning,
    },
    request_throughput: metrics.requestThroughput,
    input_throughput: metrics.inputThroughput,
    output_throughput: metrics.outputThroughput,
    total_token_throughput: metrics.totalTokenThroughput,
    mean_ttft_ms: metrics.meanTtftMs,
    median_ttft_ms: metrics.medianTtftMs,
    percentiles_ttft_ms: metrics.percentilesTtftMs.map(([p, ms]) => [p, ms]),
    mean_tpot_ms: metrics.meanTpotMs,
    median_tpot_ms: metrics.medianTpotMs,
    p90_tpot_ms: metrics.p90TpotMs,
    p99_tpot_ms: metrics.p99TpotMs,
  }
}
