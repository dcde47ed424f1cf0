/**
 * `servebench`: the benchmark DSL for Vitest suites, the engine entry point and the simulator.
 * Safe to import in the pool's worker thread.
 */
import './vitest/shared/meta.ts'

export type {
  BackendName,
  BenchConfig,
  GoodputConfig,
  PercentileMetric,
  SamplingParams,
} from './config/bench-config.ts'
export type {
  BurstGptDatasetOptions,
  CustomDatasetOptions,
  PrefixRepetitionDatasetOptions,
  SonnetDatasetOptions,
  SpecBenchDatasetOptions,
  SpeedBenchDatasetOptions,
  TimedTraceDatasetOptions,
} from './config/dsl-datasets.ts'
export type {
  ClosedLoadOptions,
  ConstantLoadOptions,
  DatasetSpec,
  EndpointOptions,
  EndpointSpec,
  LoadSpec,
  PoissonLoadOptions,
  RampUpLoadOptions,
  RandomDatasetOptions,
  RandomDatasetSpec,
  ServeBenchOptions,
} from './config/dsl-options.ts'
export { didYouMean, unknownKeyIssues } from './config/unknown-keys.ts'
export {
  BaselineError,
  ConfigError,
  DatasetError,
  EndpointError,
  ServebenchError,
  type ServebenchErrorCode,
  TokenizerError,
} from './errors.ts'
export { type ResolveServeBenchContext, resolveServeBench } from './options/dry-run.ts'
export { benchConfigFromDsl, configFingerprint } from './options/from-dsl.ts'
export type { PoolingBenchResult } from './report/result/pooling-result.ts'
export type { BenchResult } from './report/result/result-types.ts'
export { type RunHooks, type RunOutcome, runBenchmark } from './runner/run-benchmark.ts'
export type { SimOptions } from './sim/options.ts'
export { type SimServer, startSimulator } from './sim/server.ts'
export { datasets, endpoint, load } from './vitest/runtime/builders.ts'
export {
  type Assertions,
  type ServeBench,
  type ServeBenchEach,
  type ServeBenchFn,
  serveBench,
} from './vitest/runtime/dsl.ts'
export { isPoolingResult } from './vitest/runtime/samples.ts'
export type {
  BaselineExpectation,
  GoodputExpectation,
  LatencyBounds,
  ServeBenchMeta,
  ServeBenchResult,
  SloSpec,
  Verdict,
  VerdictCheck,
} from './vitest/shared/meta.ts'
