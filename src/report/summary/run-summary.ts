/**
 * The summary contract: the verdict of each check and assertion, as the matchers record it in
 * `task.meta.servebench.verdicts`, and the run summary (`servebench-summary.json`) the reporter and
 * `servebench merge-summaries` write and every summary renderer reads. Types, and the lists of
 * values a summary read from a file is checked against.
 */

/**
 * The four outcomes of a check or a benchmark: `pass` (the interval is within the bound), `fail`
 * (outside it), `inconclusive` (it straddles the bound at this sample size) or `invalid` (the
 * client, not the server, set the numbers).
 */
export type VerdictValue = 'pass' | 'fail' | 'inconclusive' | 'invalid'

/** The matchers that record a verdict. */
export type VerdictMatcher = 'toMeetSLO' | 'toHaveGoodput' | 'toMatchBaseline' | 'toSustain'

/** One checked number of a verdict. */
export interface VerdictCheck {
  /** `p99 TTFT`, `request throughput`, … */
  metric: string
  actual: number
  /** The bound; for baselines, the baseline value. */
  limit: number
  unit: string
  /** Whether the check lets the assertion pass under the verdict policy. */
  pass: boolean
  verdict: VerdictValue
  /** Confidence interval of `actual` (SLOs) or of the relative change (baselines). */
  interval?: [number, number]
  /** One-sided p-value of a baseline regression. */
  pValue?: number
  /** For an inconclusive check: about how many requests would decide it. */
  neededRequests?: number
  /**
   * A baseline comparison over several baseline runs: the lowest and highest run effect (one run's
   * level against the others) as relative changes. When it alone keeps a check undecided, more
   * requests cannot decide it.
   */
  runSpread?: [number, number]
  /** Extra evidence, e.g. the baseline comparison's interval and p-value. */
  detail?: string
}

/** One matcher call's outcome, appended to `task.meta.servebench.verdicts`. */
export interface Verdict {
  matcher: VerdictMatcher
  /** Outcome of the assertion as written (`.not` included). */
  pass: boolean
  /** The worst of its checks' verdicts (`fail` > `invalid` > `inconclusive` > `pass`). */
  verdict: VerdictValue
  /** `toMatchBaseline` recorded (or, in a probe, would record) a baseline instead of comparing. */
  recording?: boolean
  /** First line of the message: the verdict with numbers and units. */
  summary: string
  checks: VerdictCheck[]
}

/** Headline numbers of one result (null when the run produced none). */
export interface SummaryMetrics {
  completed: number
  failed: number
  duration_s: number
  request_throughput: number
  /** Null for a pooling run (no output tokens). */
  output_throughput: number | null
  mean_ttft_ms: number | null
  p99_ttft_ms: number | null
  mean_tpot_ms: number | null
  mean_itl_ms: number | null
  /** End-to-end latency: the headline of a pooling run. */
  mean_e2el_ms?: number | null
  p99_e2el_ms?: number | null
}

/** What Vitest says of a benchmark's test case. */
export const BENCHMARK_STATES = ['passed', 'failed', 'skipped', 'pending'] as const
export type BenchmarkState = (typeof BENCHMARK_STATES)[number]

/** One benchmark in the run summary. */
export interface SummaryBenchmark {
  /** Suite file relative to the project root. */
  file: string
  /** `describe > benchmark`. */
  name: string
  state: BenchmarkState
  /**
   * The benchmark's verdict: `invalid` when the client self-check found it saturated, else the
   * worst of its checks (`fail` > `inconclusive` > `pass`); `fail` for a failed benchmark without
   * a failing check (an error); null when it did not run.
   */
  verdict: VerdictValue | null
  /** Why the run is invalid, in the client self-check's words. */
  invalidReason?: string
  /** Rounds the run took to decide its checks. */
  rounds?: number
  /** The result's `client_health` (docs/client-health.md), when the run measured it. */
  clientHealth?: Record<string, unknown>
  durationMs: number | null
  /** Configuration fingerprint (what the baseline is keyed on). */
  fingerprint: string
  /** Python-schema result file (a name in the result directory), when one was written. */
  resultFile: string | null
  metrics: SummaryMetrics | null
  verdicts: Verdict[]
  /** Error messages of a failed benchmark (assertions, endpoint, configuration). */
  errors: string[]
  /** Notes that did not fail the benchmark (failures above `maxFailureRatio` under `failOnErrorRatio`). */
  warnings?: string[]
}

/** Vitest's end reason of a run. */
export const RUN_END_REASONS = ['passed', 'failed', 'interrupted'] as const
export type RunEndReason = (typeof RUN_END_REASONS)[number]

/** The run summary JSON (`servebench-summary.json`). */
export interface RunSummary {
  date: string
  /** Vitest's end reason. */
  reason: RunEndReason
  benchmarks: SummaryBenchmark[]
}
