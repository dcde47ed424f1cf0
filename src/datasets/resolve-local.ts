/**
 * Flag resolvers of the local-file and synthetic datasets: custom, sonnet, prefix_repetition,
 * burstgpt, speed_bench, spec_bench, timed_trace. `resolvers.ts` registers them by name.
 */

import type {
  BackendName,
  BurstGptDatasetConfig,
  CustomDatasetConfig,
  SonnetDatasetConfig,
  SpecBenchDatasetConfig,
  SpeedBenchDatasetConfig,
  TimedTraceDatasetConfig,
  TimedTraceLabels,
} from '../config/bench-config.ts'
import {
  type DatasetFlagContext,
  type DatasetFlagResolver,
  needsTokenizer,
  requirePath,
} from '../config/dataset-flag-checks.ts'
import type { Reader } from '../config/resolve.ts'
import type { ConfigIssue } from '../errors.ts'
import { SPEED_BENCH_SUBSETS } from './local/speed-bench.ts'
import { DEFAULT_TIMED_TRACE_LABELS, TIMED_TRACE_LABEL_FLAGS } from './local/timed-trace.ts'

/** Upstream defaults of these datasets (Python V-ref parser; Rust `cli.rs`). */
export const DEFAULT_LOCAL_DATASETS = {
  custom: { outputLen: 256 },
  sonnet: { inputLen: 550, outputLen: 150, prefixLen: 200 },
  speedBench: { subset: 'qualitative', outputLen: 4096 },
  specBench: { outputLen: 256 },
  timedTrace: { chunkHashSize: 16, secMultiplier: 1 },
} as const

/** Backends that send `/v1/completions` bodies, which can carry token-id prompts. */
export const COMPLETIONS_BACKENDS: readonly BackendName[] = ['vllm', 'openai']

/** `--dataset-name` → resolver, aliases included (`prefix-repetition`, `speed-bench`, `timed-trace`). */
export const LOCAL_DATASET_RESOLVERS = {
  custom: resolveCustom,
  sonnet: resolveSonnet,
  burstgpt: resolveBurstGpt,
  speed_bench: resolveSpeedBench,
  'speed-bench': resolveSpeedBench,
  spec_bench: resolveSpecBench,
  timed_trace: resolveTimedTrace,
  'timed-trace': resolveTimedTrace,
} as const satisfies Record<string, DatasetFlagResolver>

// custom is the one dataset Python runs with --skip-tokenizer-init (each prompt then counts 1 token).
function resolveCustom(read: Reader, context: DatasetFlagContext): CustomDatasetConfig {
  const path = requirePath(read, 'custom', 'a .jsonl file', context.issues)
  const outputLen =
    read.int('--output-len', 1) ??
    read.int('--custom-output-len', -1) ??
    DEFAULT_LOCAL_DATASETS.custom.outputLen
  if (outputLen === 0)
    context.issues.push({
      path: '--custom-output-len',
      message: "must be -1 (each line's output_tokens) or at least 1 (got 0)",
    })
  return {
    kind: 'custom',
    path,
    outputLen,
    skipChatTemplate: read.bool('--skip-chat-template'),
    disableShuffle: read.bool('--disable-shuffle'),
    noOversample: read.bool('--no-oversample'),
  }
}

function resolveSonnet(read: Reader, context: DatasetFlagContext): SonnetDatasetConfig {
  needsTokenizer('sonnet', context)
  const d = DEFAULT_LOCAL_DATASETS.sonnet
  const path = read.string('--dataset-path')
  return {
    kind: 'sonnet',
    ...(path !== undefined ? { path } : {}),
    inputLen: read.int('--sonnet-input-len', 1) ?? d.inputLen,
    outputLen: read.int('--sonnet-output-len', 1) ?? d.outputLen,
    prefixLen: read.int('--sonnet-prefix-len', 0) ?? d.prefixLen,
  }
}

function resolveBurstGpt(read: Reader, context: DatasetFlagContext): BurstGptDatasetConfig {
  needsTokenizer('burstgpt', context)
  return { kind: 'burstgpt', path: requirePath(read, 'burstgpt', 'the BurstGPT .csv file', context.issues) }
}

function resolveSpeedBench(read: Reader, context: DatasetFlagContext): SpeedBenchDatasetConfig {
  needsTokenizer('speed_bench', context)
  const d = DEFAULT_LOCAL_DATASETS.speedBench
  const category = read.string('--speed-bench-category')
  return {
    kind: 'speed_bench',
    path: requirePath(
      read,
      'speed_bench',
      'a directory of {subset}.jsonl files, or one such file',
      context.issues,
    ),
    subset: read.choice('--speed-bench-dataset-subset', SPEED_BENCH_SUBSETS) ?? d.subset,
    outputLen: read.int('--speed-bench-output-len', 1) ?? d.outputLen,
    ...(category !== undefined ? { category } : {}),
    disableShuffle: read.bool('--disable-shuffle'),
    noOversample: read.bool('--no-oversample'),
  }
}

function resolveSpecBench(read: Reader, context: DatasetFlagContext): SpecBenchDatasetConfig {
  needsTokenizer('spec_bench', context)
  const category = read.string('--spec-bench-category')
  return {
    kind: 'spec_bench',
    path: requirePath(read, 'spec_bench', "Spec-Bench's question.jsonl", context.issues),
    outputLen: read.int('--spec-bench-output-len', 1) ?? DEFAULT_LOCAL_DATASETS.specBench.outputLen,
    ...(category !== undefined ? { category } : {}),
    disableShuffle: read.bool('--disable-shuffle'),
    noOversample: read.bool('--no-oversample'),
  }
}

function resolveTimedTrace(read: Reader, context: DatasetFlagContext): TimedTraceDatasetConfig {
  const { issues } = context
  needsTokenizer('timed_trace', context)
  const path = requirePath(read, 'timed_trace', 'a JSONL trace', issues)
  if (!COMPLETIONS_BACKENDS.includes(context.backend)) {
    issues.push({
      path: '--backend',
      message: `must be a completions backend (vllm or openai) with --dataset-name timed_trace: it sends token-id prompts (got ${context.backend})`,
    })
  }
  const secMultiplier =
    read.number('--timed-trace-sec-multiplier') ?? DEFAULT_LOCAL_DATASETS.timedTrace.secMultiplier
  if (!(secMultiplier > 0))
    issues.push({
      path: '--timed-trace-sec-multiplier',
      message: `must be a finite number > 0 (got ${secMultiplier})`,
    })
  const labels = { ...DEFAULT_TIMED_TRACE_LABELS }
  for (const key of Object.keys(labels) as Array<keyof TimedTraceLabels>) {
    const flag = TIMED_TRACE_LABEL_FLAGS[key]
    const value = read.string(flag)
    if (value === '') issues.push({ path: flag, message: 'must be a non-empty field name' })
    else if (value !== undefined) labels[key] = value
  }
  const noSelfTimed = read.bool('--no-self-timed')
  if (noSelfTimed && read.bool('--self-timed'))
    issues.push({ path: '--self-timed', message: 'and --no-self-timed cannot both be given' })
  const selfTimed = !noSelfTimed
  if (selfTimed) rejectComputedSchedule(read, issues)
  return {
    kind: 'timed_trace',
    path,
    chunkHashSize:
      read.int('--timed-trace-chunk-hash-size', 1) ?? DEFAULT_LOCAL_DATASETS.timedTrace.chunkHashSize,
    secMultiplier,
    labels,
    selfTimed,
  }
}

// Rust §4.10: under trace-driven timing the schedule flags would be silently ignored, so they are errors.
function rejectComputedSchedule(read: Reader, issues: ConfigIssue[]): void {
  const hint =
    'has no effect under trace-driven timing (timed_trace sends each request at its trace timestamp); pass --no-self-timed to use it'
  const rate = read.string('--request-rate')
  if (rate !== undefined && !/^\+?inf(inity)?$/i.test(rate.trim()))
    issues.push({ path: '--request-rate', message: hint })
  const burstiness = read.string('--burstiness')
  if (burstiness !== undefined && Number(burstiness) !== 1)
    issues.push({ path: '--burstiness', message: hint })
  if (read.string('--ramp-up-strategy') !== undefined)
    issues.push({ path: '--ramp-up-strategy', message: hint })
}
