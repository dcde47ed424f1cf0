import type {
  BurstGptDatasetOptions,
  BurstGptDatasetSpec,
  CustomAudioDatasetOptions,
  CustomAudioDatasetSpec,
  CustomDatasetOptions,
  CustomDatasetSpec,
  CustomImageDatasetOptions,
  CustomImageDatasetSpec,
  HfDatasetOptions,
  HfDatasetSpec,
  MultiTurnDatasetOptions,
  MultiTurnDatasetSpec,
  PrefixRepetitionDatasetOptions,
  PrefixRepetitionDatasetSpec,
  RandomMmDatasetOptions,
  RandomMmDatasetSpec,
  RandomRerankDatasetOptions,
  RandomRerankDatasetSpec,
  ShareGptDatasetOptions,
  ShareGptDatasetSpec,
  SonnetDatasetOptions,
  SonnetDatasetSpec,
  SpecBenchDatasetOptions,
  SpecBenchDatasetSpec,
  SpeedBenchDatasetOptions,
  SpeedBenchDatasetSpec,
  TimedTraceDatasetOptions,
  TimedTraceDatasetSpec,
} from '../../config/dsl-datasets.ts'
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
  TraceLoadOptions,
} from '../../config/dsl-options.ts'
import { DATASET_REGISTRY } from '../../datasets/registry.ts'

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
  /** Random text plus synthetic JPEG images, for `openai-chat` (`--dataset-name random-mm`). */
  randomMm(options?: RandomMmDatasetOptions): RandomMmDatasetSpec
  /** One query and batches of documents for rerank or embedding backends (`--dataset-name random-rerank`). */
  randomRerank(options?: RandomRerankDatasetOptions): RandomRerankDatasetSpec
  /** Synthetic conversations sent turn by turn with history, for `openai-chat` (`--multi-turn`). @experimental */
  multiTurn(options?: MultiTurnDatasetOptions): MultiTurnDatasetSpec
  /** Your JSONL prompts (`--dataset-name custom`); `outputLen: -1` takes each line's `output_tokens`. */
  custom(options: CustomDatasetOptions): CustomDatasetSpec
  /** JSONL prompts with a WAV, FLAC or MP3 file each, sent by `openai-audio`, or by `openai-chat` as `input_audio` parts (`--dataset-name custom_audio`). */
  customAudio(options: CustomAudioDatasetOptions): CustomAudioDatasetSpec
  /** JSONL prompts with images, or interleaved text and image parts, for `openai-chat` (`--dataset-name custom_image`). */
  customImage(options: CustomImageDatasetOptions): CustomImageDatasetSpec
  /** Shakespeare's sonnets: a shared prefix of lines plus sampled lines (`--dataset-name sonnet`). */
  sonnet(options?: SonnetDatasetOptions): SonnetDatasetSpec
  /** `numPrefixes` shared random prefixes with random suffixes (`--dataset-name prefix_repetition`). */
  prefixRepetition(options?: PrefixRepetitionDatasetOptions): PrefixRepetitionDatasetSpec
  /** Request and response lengths of GPT-4 rows in a BurstGPT CSV (`--dataset-name burstgpt`). */
  burstgpt(options: BurstGptDatasetOptions): BurstGptDatasetSpec
  /** NVIDIA SPEED-Bench `{subset}.jsonl` (`--dataset-name speed_bench`). */
  speedBench(options: SpeedBenchDatasetOptions): SpeedBenchDatasetSpec
  /** Spec-Bench `question.jsonl` (`--dataset-name spec_bench`). */
  specBench(options: SpecBenchDatasetOptions): SpecBenchDatasetSpec
  /** A Mooncake-style trace replayed at its timestamps (`--dataset-name timed_trace`). */
  timedTrace(options: TimedTraceDatasetOptions): TimedTraceDatasetSpec
  /** ShareGPT conversations from a JSON file, or downloaded from the hub (`--dataset-name sharegpt`). */
  sharegpt(options?: ShareGptDatasetOptions): ShareGptDatasetSpec
  /** A Hugging Face dataset by id, or a local copy (`--dataset-name hf`). */
  hf(options: HfDatasetOptions): HfDatasetSpec
} = Object.fromEntries(
  // One builder per registry entry: a plain object tagged with the dataset's kind.
  DATASET_REGISTRY.map((entry) => [entry.builder, (options = {}) => ({ ...options, kind: entry.kind })]),
) as unknown as typeof datasets

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
