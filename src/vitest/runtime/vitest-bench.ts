import { percentileSorted, sum } from '../../metrics/percentile.ts'
import { normalQuantile } from '../../metrics/proportion-interval.ts'
import { latencySamplesMs } from '../../metrics/result-samples.ts'
import type { ServeBenchResult } from '../shared/meta.ts'

/**
 * Vitest 5's benchmark model, as servebench fits into it: a serveBench run becomes one row of
 * Vitest's benchmark table (and of `writeResult` / `bench.from()` files), with the per-request
 * end-to-end latencies as its samples. The shapes are tinybench 6's (`Statistics`,
 * `TaskResultCompleted`), written out here because the Vitest 4 types servebench builds against
 * do not have them.
 */

/** tinybench 6 `Statistics`, in ms (latency) or operations per second (throughput). */
export interface BenchStatistics {
  aad: number
  critical: number
  df: number
  mad: number
  max: number
  mean: number
  min: number
  moe: number
  p50: number
  p75: number
  p99: number
  p995: number
  p999: number
  rme: number
  samples: number[] | undefined
  samplesCount: number
  sd: number
  sem: number
  variance: number
}

/** Vitest 5 `BenchResult`: what a benchmark provider returns for one registration. */
export interface VitestBenchResult {
  name: string
  state: 'completed'
  latency: BenchStatistics
  throughput: BenchStatistics
  /** Mean latency in ms. */
  period: number
  /** Sum of the latencies in ms. */
  totalTime: number
  runtime: 'node'
  runtimeVersion: string
  timestampProviderName: string
}

/** The function a serveBench task registers with `bench(name, fn)`; servebench's provider calls it once. */
export type ServebenchBenchFn = (() => VitestBenchResult) & { [SERVEBENCH_BENCH]: true }

const SERVEBENCH_BENCH = Symbol.for('servebench.benchFn')
const BENCH_PROJECT = Symbol.for('servebench.benchmarkProject')

/** What the runner saw of the file's project: Vitest 5's serialized `benchmark` config. */
interface BenchmarkProjectConfig {
  enabled?: boolean
  provider?: string | undefined
  retainSamples?: boolean
}

/**
 * Called by the runner for each file on Vitest 5. On `globalThis`: the runner and the suites load
 * this module in different module graphs.
 */
export function noteBenchmarkProject(config: unknown): void {
  const g = globalThis as { [BENCH_PROJECT]?: BenchmarkProjectConfig }
  g[BENCH_PROJECT] = (config ?? {}) as BenchmarkProjectConfig
}

/**
 * Whether a serveBench run should be recorded with Vitest's `bench` fixture: a Vitest 5 benchmark
 * project (`vitest bench`) whose provider is servebench's. `retainSamples` is Vitest's option.
 */
export function benchmarkTable(): { retainSamples: boolean } | undefined {
  const config = (globalThis as { [BENCH_PROJECT]?: BenchmarkProjectConfig })[BENCH_PROJECT]
  if (!config?.enabled || !isServebenchProvider(config.provider)) return undefined
  return { retainSamples: config.retainSamples === true }
}

/** Whether a `benchmark.provider` path is servebench's provider module. */
export function isServebenchProvider(path: string | undefined): boolean {
  return path !== undefined && /[\\/]vitest[\\/]runtime[\\/]provider\.[jt]s$/.test(path)
}

/** A `bench()` function that hands servebench's provider the finished run's figures. */
export function servebenchBenchFn(
  name: string,
  result: ServeBenchResult,
  retainSamples: boolean,
): ServebenchBenchFn {
  const fn = (): VitestBenchResult => toVitestBenchResult(name, result, retainSamples)
  return Object.assign(fn, { [SERVEBENCH_BENCH]: true as const })
}

/** Whether `fn` was made by {@link servebenchBenchFn}. */
export function isServebenchBenchFn(fn: unknown): fn is ServebenchBenchFn {
  return typeof fn === 'function' && (fn as { [SERVEBENCH_BENCH]?: boolean })[SERVEBENCH_BENCH] === true
}

/**
 * One serveBench run as a Vitest benchmark result: latency is each successful request's end-to-end
 * latency (ms), throughput is each one's `1000 / latency` (tinybench's definition: per request, not
 * the server's requests per second, which servebench's own line and result file give).
 */
export function toVitestBenchResult(
  name: string,
  result: ServeBenchResult,
  retainSamples = false,
): VitestBenchResult {
  const latenciesMs = latencySamplesMs(result, 'e2el')
  const latency = benchStatistics(latenciesMs, retainSamples)
  const rates = latenciesMs.map((ms) => (ms > 0 ? 1000 / ms : latency.mean > 0 ? 1000 / latency.mean : 0))
  const totalTime = sum(latenciesMs)
  return {
    name,
    state: 'completed',
    latency,
    throughput: benchStatistics(rates, retainSamples),
    period: latenciesMs.length > 0 ? totalTime / latenciesMs.length : 0,
    totalTime,
    runtime: 'node',
    runtimeVersion: process.version,
    timestampProviderName: 'performanceNow',
  }
}

/** tinybench's statistics of a sample: sample variance (n − 1), Student's t margin of error at 95 %. */
export function benchStatistics(values: readonly number[], retainSamples = false): BenchStatistics {
  const sorted = Float64Array.from(values).sort()
  const n = sorted.length
  const mean = n > 0 ? sum(sorted) / n : 0
  const variance = n > 1 ? sum(sorted.map((v) => (v - mean) ** 2)) / (n - 1) : 0
  const sd = Math.sqrt(variance)
  const sem = n > 0 ? sd / Math.sqrt(n) : 0
  const df = Math.max(n - 1, 0)
  const critical = tCritical95(Math.max(df, 1))
  const moe = sem * critical
  const p = (q: number): number => (n > 0 ? percentileSorted(sorted, q) : 0)
  const median = p(50)
  return {
    aad: n > 0 ? sum(sorted.map((v) => Math.abs(v - mean))) / n : 0,
    critical,
    df,
    mad: n > 0 ? percentileSorted(Float64Array.from(sorted, (v) => Math.abs(v - median)).sort(), 50) : 0,
    max: n > 0 ? sorted[n - 1]! : 0,
    mean,
    min: n > 0 ? sorted[0]! : 0,
    moe,
    p50: median,
    p75: p(75),
    p99: p(99),
    p995: p(99.5),
    p999: p(99.9),
    rme: mean === 0 ? Number.POSITIVE_INFINITY : (100 * moe) / Math.abs(mean),
    samples: retainSamples ? Array.from(sorted) : undefined,
    samplesCount: n,
    sd,
    sem,
    variance,
  }
}

/**
 * The two-sided 95 % critical value of Student's t: exact for 1 and 2 degrees of freedom, else
 * the Cornish-Fisher expansion around the normal quantile (within 0.002 of the table from 3 on).
 */
export function tCritical95(df: number): number {
  if (df <= 1) return 12.706204736174698
  if (df === 2) return 4.302652729749464
  const z = normalQuantile(0.975)
  const z3 = z ** 3
  const z5 = z ** 5
  const z7 = z ** 7
  const z9 = z ** 9
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3) +
    (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92_160 * df ** 4)
  )
}
