/**
 * From what the Vitest reporter collected of each benchmark to its entry in the run summary: the
 * benchmark's verdict, its headline numbers and its result tagged with its shape. Pure: the
 * reporter collects, this decides, report/files/ writes.
 */
import type { CapacityResultFile } from '../../capacity/capacity-result.ts'
import type { MultiTurnBenchResult } from '../result/multi-turn.ts'
import type { PoolingBenchResult } from '../result/pooling-result.ts'
import type { BenchResult } from '../result/result-types.ts'
import type { RunKind, RunResult } from '../result/run-result.ts'
import type {
  BenchmarkState,
  SummaryBenchmark,
  SummaryMetrics,
  Verdict,
  VerdictValue,
} from './run-summary.ts'
import { worstVerdict } from './verdict-marks.ts'

/** One benchmark as the reporter collected it: Vitest's test case and servebench's task meta, plain data. */
export interface CollectedBenchmark {
  /** Suite file relative to the Vitest root. */
  file: string
  /** `describe > benchmark`. */
  name: string
  state: BenchmarkState
  durationMs: number | null
  /** Error messages of the test case. */
  errors: string[]
  fingerprint: string
  /** The verdicts its matchers appended. */
  verdicts: Verdict[]
  /** Why the run is invalid (the client self-check's reasons). */
  invalid?: string
  rounds?: number
  /** Notes that did not fail the benchmark. */
  warnings: string[]
  /** The Python-schema result, when the run produced one, and its shape. */
  result?: BenchResult | PoolingBenchResult
  kind?: RunKind
  /** The stored baseline's samples (ms) by family, for the HTML report. */
  baseline?: Partial<Record<'ttft' | 'itl' | 'e2el', number[]>>
  /** A capacity search's file (`serveBench.capacity`), written beside the results and drawn in the report. */
  capacity?: CapacityResultFile
}

/** The benchmark's result tagged with its shape; a result without `kind` is judged by its keys. */
export function runResultOf(b: Pick<CollectedBenchmark, 'result' | 'kind'>): RunResult | undefined {
  const { result } = b
  if (!result) return undefined
  const kind = b.kind ?? (Array.isArray(result.ttfts) ? 'generation' : 'pooling')
  if (kind === 'pooling') return { kind, result: result as PoolingBenchResult }
  // A multi-turn run's result reaches a suite as a generation result (vitest/runtime/rounds.ts).
  if (kind === 'multi-turn') return { kind, result: result as unknown as MultiTurnBenchResult }
  return { kind, result: result as BenchResult }
}

/**
 * The benchmark's verdict: `invalid` when the client self-check found the run saturated; none for
 * a benchmark that did not run; else the worst of its verdicts and checks, and `fail` for a failed
 * benchmark that no check failed (an error).
 */
export function benchmarkVerdict(
  b: Pick<CollectedBenchmark, 'state' | 'invalid' | 'verdicts'>,
): VerdictValue | null {
  if (b.invalid) return 'invalid'
  if (b.state === 'skipped' || b.state === 'pending') return null
  const worst = worstVerdict(b.verdicts.flatMap((v) => [v.verdict, ...v.checks.map((c) => c.verdict)]))
  return b.state === 'failed' && worst === 'pass' ? 'fail' : worst
}

/** The headline numbers of a result; a pooling result has no token keys (null). */
export function summaryMetrics(r: BenchResult | PoolingBenchResult): SummaryMetrics {
  const num = (k: string): number | null => (typeof r[k] === 'number' ? (r[k] as number) : null)
  return {
    completed: r.completed,
    failed: typeof r.failed === 'number' ? r.failed : r.errors.filter((e) => e !== '').length,
    duration_s: r.duration,
    request_throughput: r.request_throughput,
    output_throughput: num('output_throughput'),
    mean_ttft_ms: num('mean_ttft_ms'),
    p99_ttft_ms: num('p99_ttft_ms'),
    mean_tpot_ms: num('mean_tpot_ms'),
    mean_itl_ms: num('mean_itl_ms'),
    mean_e2el_ms: num('mean_e2el_ms'),
    p99_e2el_ms: num('p99_e2el_ms'),
  }
}

/** The benchmark's entry in the run summary; `resultFile` is where its result was written, if it was. */
export function summariseBenchmark(b: CollectedBenchmark, resultFile: string | null): SummaryBenchmark {
  const { result } = b
  return {
    file: b.file,
    name: b.name,
    state: b.state,
    verdict: benchmarkVerdict(b),
    ...(b.invalid ? { invalidReason: b.invalid } : {}),
    ...(b.rounds !== undefined ? { rounds: b.rounds } : {}),
    ...(isRecord(result?.client_health) ? { clientHealth: result.client_health } : {}),
    durationMs: b.durationMs,
    fingerprint: b.fingerprint,
    resultFile,
    metrics: result ? summaryMetrics(result) : null,
    verdicts: b.verdicts,
    errors: b.errors,
    warnings: b.warnings,
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
