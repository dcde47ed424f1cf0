/** The resolvers and generators of the datasets not yet in a module of their own. */
import type { DatasetFlagResolver } from '../config/dataset-flag-checks.ts'
import type { DatasetModule } from './dataset-module.ts'
import { generateHf } from './hub/hf.ts'
import { generateShareGpt } from './hub/sharegpt.ts'
import { generateBurstGpt } from './local/burstgpt.ts'
import { generateCustom } from './local/custom.ts'
import { generateCustomAudio } from './local/custom-audio.ts'
import { generateCustomImage } from './local/custom-image.ts'
import { generateSonnet } from './local/sonnet.ts'
import { generateSpecBench } from './local/spec-bench.ts'
import { generateSpeedBench } from './local/speed-bench.ts'
import { generateTimedTrace } from './local/timed-trace.ts'
import { resolveCustomAudioFlags } from './resolve-audio.ts'
import { resolveCustomImageFlags } from './resolve-custom-image.ts'
import { HUB_DATASET_RESOLVERS } from './resolve-hub.ts'
import { LOCAL_DATASET_RESOLVERS } from './resolve-local.ts'

export const LEGACY_RESOLVERS: Readonly<Record<string, DatasetFlagResolver>> = {
  custom_audio: resolveCustomAudioFlags,
  custom_image: resolveCustomImageFlags,
  ...LOCAL_DATASET_RESOLVERS,
  ...HUB_DATASET_RESOLVERS,
}

export const LEGACY_GENERATORS = {
  custom: generateCustom,
  custom_audio: generateCustomAudio,
  custom_image: generateCustomImage,
  sonnet: generateSonnet,
  burstgpt: generateBurstGpt,
  speed_bench: generateSpeedBench,
  spec_bench: generateSpecBench,
  timed_trace: generateTimedTrace,
  sharegpt: generateShareGpt,
  hf: generateHf,
} as unknown as Readonly<Record<string, NonNullable<DatasetModule['generate']>>>
