import type {
  ClosedLoadOptions,
  ConstantLoadOptions,
  EndpointOptions,
  EndpointSpec,
  LoadSpec,
  PoissonLoadOptions,
  RampUpLoadOptions,
  TraceLoadOptions,
} from '../../config/dsl-options.ts'
import { DATASET_REGISTRY, type DatasetBuilders } from '../../datasets/registry.ts'

/**
 * The DSL's value builders. They return plain tagged objects; `serveBench` validates them when the
 * suite file is collected, so a bad value fails before any request is sent.
 */

/** An endpoint: backend, model, base URL, path, headers, API key, tokenizer. */
export function endpoint(options: EndpointOptions = {}): EndpointSpec {
  return { ...options, kind: 'endpoint' }
}

/**
 * One builder per dataset module of the registry (`--dataset-name`), each documented there: its
 * options type is the module's, and it returns them tagged with the dataset's kind.
 */
export const datasets: DatasetBuilders = Object.fromEntries(
  DATASET_REGISTRY.map((entry) => [entry.builder, (options = {}) => ({ ...options, kind: entry.kind })]),
) as unknown as DatasetBuilders

/** Arrival processes (`--request-rate`, `--burstiness`, `--max-concurrency`, `--ramp-up-*`, `--self-timed`). */
export const load: {
  /** Gamma arrivals at `rate` req/s; `burstiness` 1 (default) is Poisson. */
  poisson(options: PoissonLoadOptions): LoadSpec
  /** Evenly spaced arrivals at `rate` req/s. */
  constant(options: ConstantLoadOptions): LoadSpec
  /** Closed loop: every request ready at t=0, `concurrency` in flight. */
  closed(options: ClosedLoadOptions): LoadSpec
  /** A rate that moves from `startRps` to `endRps` over the run. */
  rampUp(options: RampUpLoadOptions): LoadSpec
  /**
   * Replays `datasets.timedTrace()` at its own timestamps (`--self-timed`); `timeScale` 0.5 replays
   * twice as fast. Only with a timed trace.
   */
  trace(options?: TraceLoadOptions): LoadSpec
} = {
  poisson: (options) => ({ ...options, kind: 'poisson' }),
  constant: (options) => ({ ...options, kind: 'constant' }),
  closed: (options) => ({ ...options, kind: 'closed' }),
  rampUp: (options) => ({ ...options, kind: 'rampUp' }),
  trace: (options = {}) => ({ ...options, kind: 'trace' }),
}
