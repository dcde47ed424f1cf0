import type {
  ClosedLoadOptions,
  ConstantLoadOptions,
  EndpointOptions,
  EndpointSpec,
  LoadSpec,
  PoissonLoadOptions,
  RampUpLoadOptions,
  RandomDatasetOptions,
  RandomDatasetSpec,
} from '../../config/from-dsl.ts'

/**
 * The DSL's value builders. They return plain tagged objects; `serveBench` validates them when the
 * suite file is collected, so a bad value fails before any request is sent.
 */

/** An endpoint: backend, model, base URL, path, headers, API key, tokenizer. */
export function endpoint(options: EndpointOptions = {}): EndpointSpec {
  return { ...options, kind: 'endpoint' }
}

/** One builder per dataset the engine has (`--dataset-name`). */
export const datasets: {
  /** Random token prompts of `inputLen` tokens asking for `outputLen` tokens (`--dataset-name random`). */
  random(options?: RandomDatasetOptions): RandomDatasetSpec
} = {
  random: (options = {}) => ({ ...options, kind: 'random' }),
}

/** Arrival processes (`--request-rate`, `--burstiness`, `--max-concurrency`, `--ramp-up-*`). */
export const load: {
  /** Gamma arrivals at `rate` req/s; `burstiness` 1 (default) is Poisson. */
  poisson(options: PoissonLoadOptions): LoadSpec
  /** Evenly spaced arrivals at `rate` req/s. */
  constant(options: ConstantLoadOptions): LoadSpec
  /** Closed loop: every request ready at t=0, `concurrency` in flight. */
  closed(options: ClosedLoadOptions): LoadSpec
  /** A rate that moves from `startRps` to `endRps` over the run. */
  rampUp(options: RampUpLoadOptions): LoadSpec
} = {
  poisson: (options) => ({ ...options, kind: 'poisson' }),
  constant: (options) => ({ ...options, kind: 'constant' }),
  closed: (options) => ({ ...options, kind: 'closed' }),
  rampUp: (options) => ({ ...options, kind: 'rampUp' }),
}
