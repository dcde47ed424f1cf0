/** The keys every result starts with, generation or pooling (`setupKeys` in result-json.ts). */
export interface ResultSetupKeys {
  date: string
  endpoint_type: string
  backend: string
  label: string | null
  model_id: string
  tokenizer_id: string | null
  num_prompts: number
  num_warmups: number
  request_rate: number | 'inf'
  burstiness: number
  max_concurrency: number | null
  ramp_up_strategy?: 'linear' | 'exponential'
  ramp_up_start_rps?: number
  ramp_up_end_rps?: number
}

/**
 * The per-request arrays ({@link DETAILED_KEYS}, in that order): 1:1 with the records, failures
 * included. A generation and a multi-turn result both carry them.
 */
export interface RequestArrays {
  input_lens: number[]
  output_lens: number[]
  ttfts: number[]
  itls: number[][]
  latencies: number[]
  start_times: number[]
  queue_times: number[]
  generated_texts: string[]
  errors: string[]
}

/**
 * The result object, keyed exactly as Python `vllm bench serve` writes its result JSON
 * (vllm/benchmarks/serve.py, `main_async` + `benchmark()`). Key order is the order of insertion in
 * `report/result/result-json.ts`. In memory the per-request arrays are always present; the writer
 * drops them unless `--save-detailed`.
 */
export interface BenchResult extends ResultSetupKeys, RequestArrays {
  duration: number
  completed: number
  failed: number
  total_input_tokens: number
  total_output_tokens: number
  request_throughput: number
  request_goodput: number | null
  output_throughput: number
  total_token_throughput: number
  max_output_tokens_per_s: number
  max_concurrent_requests: number
  rtfx: number
  /** servebench addition (Deviation): `true`, last, only when SIGINT/SIGTERM stopped the run. */
  interrupted?: true
  /** `mean_ttft_ms`, `p99_itl_ms`, metadata keys, … */
  [key: string]: unknown
}

/** Per-request arrays: written only with `--save-detailed` (as vLLM's tests/benchmarks assert). */
export const DETAILED_KEYS = [
  'input_lens',
  'output_lens',
  'ttfts',
  'itls',
  'latencies',
  'start_times',
  'queue_times',
  'generated_texts',
  'errors',
] as const

/**
 * servebench's per-request arrays, written like {@link DETAILED_KEYS} only with `--save-detailed`:
 * `intended_delays` (open loops), seconds from each request's intended send time to its actual one.
 */
export const SERVEBENCH_DETAILED_KEYS = ['intended_delays'] as const
