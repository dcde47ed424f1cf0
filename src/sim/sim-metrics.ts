import type { SimCacheStats } from './kv-cache.ts'
import { engineLabels, type MetricFamily } from './metric-families.ts'
import type { SpecDecodeSim } from './spec-decode.ts'
import type { StepLagStats } from './step-clock.ts'

// Bucket bounds (seconds) of vLLM's own histograms, so dashboards built for vLLM read the simulator too.
// vLLM: vllm/v1/metrics/loggers.py
const TTFT_BUCKETS_S = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640,
  2560,
]
const ITL_BUCKETS_S = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80,
]
const E2E_BUCKETS_S = [
  0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680,
]

/** Why a request ended, as vLLM's `finished_reason` label. */
export type FinishReason = 'length' | 'stop'

/** The counters and histograms `/metrics` exposes. */
export class SimMetrics {
  promptTokensTotal = 0
  generationTokensTotal = 0
  readonly requestSuccessTotal: Record<FinishReason, number> = { length: 0, stop: 0 }
  readonly ttft = new Histogram(TTFT_BUCKETS_S)
  readonly itl = new Histogram(ITL_BUCKETS_S)
  readonly e2e = new Histogram(E2E_BUCKETS_S)
  /** Speculative-decoding counters, when the simulator drafts (`specDecodeNumTokens`). */
  specDecode: SpecDecodeSim | undefined

  /**
   * This engine's families, each sample labelled `engine="<engine>"` and `model_name`, as vLLM labels
   * every engine of a data-parallel deployment (one engine: `engine="0"`).
   */
  families(
    model: string,
    engine: number,
    gauges: { running: number; waiting: number; lag: StepLagStats; cache?: SimCacheStats },
  ): MetricFamily[] {
    const { before, after } = engineLabels(engine, model)
    const label = `${before},${after}`
    const out: MetricFamily[] = []
    const metric = (name: string, type: MetricFamily['type'], help: string, samples: string[]): void => {
      out.push({ name, type, help, samples })
    }
    metric('vllm:num_requests_running', 'gauge', 'Number of requests in model execution batches.', [
      `vllm:num_requests_running{${label}} ${gauges.running}`,
    ])
    metric('vllm:num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.', [
      `vllm:num_requests_waiting{${label}} ${gauges.waiting}`,
    ])
    const cache = gauges.cache ?? {
      kvCacheUsagePerc: 0,
      numPreemptions: 0,
      prefixCacheQueries: 0,
      prefixCacheHits: 0,
    }
    metric('vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', [
      `vllm:kv_cache_usage_perc{${label}} ${cache.kvCacheUsagePerc}`,
    ])
    metric('vllm:num_preemptions_total', 'counter', 'Cumulative number of preemption from the engine.', [
      `vllm:num_preemptions_total{${label}} ${cache.numPreemptions}`,
    ])
    metric(
      'vllm:prefix_cache_queries_total',
      'counter',
      'Prefix cache queries, in terms of number of queried tokens.',
      [`vllm:prefix_cache_queries_total{${label}} ${cache.prefixCacheQueries}`],
    )
    metric(
      'vllm:prefix_cache_hits_total',
      'counter',
      'Prefix cache hits, in terms of number of cached tokens.',
      [`vllm:prefix_cache_hits_total{${label}} ${cache.prefixCacheHits}`],
    )
    metric('vllm:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', [
      `vllm:prompt_tokens_total{${label}} ${this.promptTokensTotal}`,
    ])
    metric('vllm:generation_tokens_total', 'counter', 'Number of generation tokens processed.', [
      `vllm:generation_tokens_total{${label}} ${this.generationTokensTotal}`,
    ])
    metric(
      'vllm:request_success_total',
      'counter',
      'Count of successfully processed requests.',
      (Object.keys(this.requestSuccessTotal) as FinishReason[]).map(
        (reason) =>
          `vllm:request_success_total{${before},finished_reason="${reason}",${after}} ${this.requestSuccessTotal[reason]}`,
      ),
    )
    const histogram = (name: string, help: string, h: Histogram): void =>
      metric(name, 'histogram', help, h.samples(name, before, after))
    histogram('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', this.ttft)
    histogram('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', this.itl)
    histogram('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', this.e2e)
    metric(
      'servebench_sim_step_lag_seconds',
      'gauge',
      'How late simulator engine steps ran compared with their schedule.',
      [
        `servebench_sim_step_lag_seconds{${before},stat="max"} ${gauges.lag.maxMs / 1000}`,
        `servebench_sim_step_lag_seconds{${before},stat="recent_mean"} ${gauges.lag.recentMeanMs / 1000}`,
        // Cumulative: a client reads them before and after its run for the mean lag in between.
        `servebench_sim_step_lag_seconds{${before},stat="sum"} ${(gauges.lag.meanMs * gauges.lag.steps) / 1000}`,
        `servebench_sim_step_lag_seconds{${before},stat="count"} ${gauges.lag.steps}`,
      ],
    )
    if (this.specDecode) out.push(...this.specDecode.families(label))
    return out
  }
}

class Histogram {
  private readonly bounds: number[]
  /** Non-cumulative counts per bucket, plus one for +Inf. */
  private readonly counts: number[]
  private sum = 0
  private count = 0

  constructor(bounds: number[]) {
    this.bounds = bounds
    this.counts = new Array<number>(bounds.length + 1).fill(0)
  }

  observe(valueS: number): void {
    let i = 0
    while (i < this.bounds.length && valueS > this.bounds[i]!) i++
    this.counts[i]!++
    this.sum += valueS
    this.count++
  }

  /** The bucket, sum and count lines, `le` between the labels before and after it in sorted order. */
  samples(name: string, before: string, after: string): string[] {
    const lines: string[] = []
    let cumulative = 0
    for (let i = 0; i <= this.bounds.length; i++) {
      cumulative += this.counts[i]!
      const le = i < this.bounds.length ? formatBound(this.bounds[i]!) : '+Inf'
      lines.push(`${name}_bucket{${before},le="${le}",${after}} ${cumulative}`)
    }
    lines.push(
      `${name}_sum{${before},${after}} ${this.sum}`,
      `${name}_count{${before},${after}} ${this.count}`,
    )
    return lines
  }
}

/** Python's prometheus_client writes bounds as floats ("1.0", "0.005"). */
function formatBound(bound: number): string {
  return Number.isInteger(bound) ? `${bound}.0` : String(bound)
}
