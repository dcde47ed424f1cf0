/**
 * `servebench`: the benchmark DSL for Vitest suites, the engine entry point and the simulator.
 * Safe to import in the pool's worker thread.
 */
import './vitest/shared/meta.ts'

export type {
  CapacityAnswer,
  CapacityCheck,
  CapacityProbe,
  CapacityResultFile,
  CapacitySlo,
  CapacityVary,
} from './capacity/capacity-result.ts'
export type { CapacitySearchOptions } from './capacity/options.ts'
export { type CapacityRun, type CapacityRunInput, runCapacity } from './capacity/run-capacity.ts'
export type {
  BackendName,
  BenchConfig,
  GoodputConfig,
  PercentileMetric,
  SamplingParams,
} from './config/bench-config.ts'
export type {
  ClosedLoadOptions,
  ConstantLoadOptions,
  EndpointOptions,
  EndpointSpec,
  LoadSpec,
  PoissonLoadOptions,
  RampUpLoadOptions,
  ServeBenchOptions,
} from './config/dsl-options.ts'
export { didYouMean, unknownKeyIssues } from './config/unknown-keys.ts'
// Every dataset's DSL options, from its module; src/datasets/registry.test-d.ts checks that each
// builder of the registry has its options type here.
export type { HfDatasetOptions } from './datasets/hub/hf.ts'
export type { ShareGptDatasetOptions } from './datasets/hub/sharegpt.ts'
export type { BurstGptDatasetOptions } from './datasets/local/burstgpt.ts'
export type { CustomDatasetOptions } from './datasets/local/custom.ts'
export type { CustomAudioDatasetOptions } from './datasets/local/custom-audio.ts'
export type { CustomImageDatasetOptions } from './datasets/local/custom-image.ts'
export type { SonnetDatasetOptions } from './datasets/local/sonnet.ts'
export type { SpecBenchDatasetOptions } from './datasets/local/spec-bench.ts'
export type { SpeedBenchDatasetOptions } from './datasets/local/speed-bench.ts'
export type { TimedTraceDatasetOptions } from './datasets/local/timed-trace.ts'
export type { MultiTurnDatasetOptions } from './datasets/random/multi-turn.ts'
export type { PrefixRepetitionDatasetOptions } from './datasets/random/prefix-repetition.ts'
export type { RandomDatasetOptions, RandomDatasetSpec } from './datasets/random/random.ts'
export type { RandomMmDatasetOptions } from './datasets/random/random-mm.ts'
export type { RandomRerankDatasetOptions } from './datasets/random/random-rerank.ts'
export type { DatasetSpec } from './datasets/registry.ts'
export {
  BaselineError,
  ConfigError,
  DatasetError,
  EndpointError,
  ServebenchError,
  type ServebenchErrorCode,
  TokenizerError,
} from './errors.ts'
export { isPoolingResult } from './metrics/result-samples.ts'
export { type ResolveServeBenchContext, resolveServeBench } from './options/dry-run.ts'
export { benchConfigFromDsl, configFingerprint } from './options/from-dsl.ts'
export type { MultiTurnBenchResult } from './report/result/multi-turn.ts'
export type { PoolingBenchResult } from './report/result/pooling-result.ts'
export type { BenchResult } from './report/result/result-types.ts'
export { type RunHooks, type RunOutcome, runBenchmark } from './runner/run-benchmark.ts'
export type { SimOptions } from './sim/options.ts'
export { type SimServer, startSimulator } from './sim/server.ts'
export { datasets, endpoint, load } from './vitest/runtime/builders.ts'
export type {
  CapacityAssertions,
  CapacityBenchFn,
  CapacityBenchOptions,
  CapacityLatencyBounds,
  CapacitySloSpec,
} from './vitest/runtime/capacity-bench.ts'
export type { SustainExpectation } from './vitest/runtime/capacity-checks.ts'
export {
  type Assertions,
  type ServeBench,
  type ServeBenchEach,
  type ServeBenchFn,
  serveBench,
} from './vitest/runtime/dsl.ts'
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
