/**
 * The resolver of each `--dataset-name` (aliases included): the synthetic, local, hub, audio and
 * image families. `options/serve-flags.ts` hands {@link datasetResolver} to `config/resolve.ts`.
 */
import { strict as assert } from 'node:assert'
import type { DatasetConfig } from '../config/bench-config.ts'
import type { DatasetFlagContext, DatasetFlagResolver } from '../config/dataset-flag-checks.ts'
import type { Reader } from '../config/resolve.ts'
import { resolveCustomAudioFlags } from './resolve-audio.ts'
import { resolveCustomImageFlags } from './resolve-custom-image.ts'
import { HUB_DATASET_RESOLVERS } from './resolve-hub.ts'
import { LOCAL_DATASET_RESOLVERS } from './resolve-local.ts'
import { SYNTHETIC_DATASET_RESOLVERS } from './resolve-synthetic.ts'

/** The `--dataset-name` values that have a resolver (the registry's names; a test checks both agree). */
export type DatasetName = keyof typeof RESOLVERS

/** One resolver per `--dataset-name`: reads its own flags, reports its own issues. */
const RESOLVERS = {
  ...SYNTHETIC_DATASET_RESOLVERS,
  custom_audio: resolveCustomAudioFlags,
  custom_image: resolveCustomImageFlags,
  ...LOCAL_DATASET_RESOLVERS,
  ...HUB_DATASET_RESOLVERS,
} as const satisfies Record<string, DatasetFlagResolver>

/** The `--dataset-name` values with a resolver. */
export const RESOLVED_DATASET_NAMES: readonly string[] = Object.keys(RESOLVERS)

export function resolveDatasetFlags(
  name: DatasetName,
  read: Reader,
  context: DatasetFlagContext,
): DatasetConfig {
  return RESOLVERS[name](read, context)
}

/**
 * The resolver of a `--dataset-name` the flag table accepts (`config/resolve.ts` checked it
 * against the registry's names; a test checks that each has a resolver).
 */
export function datasetResolver(name: string): DatasetFlagResolver {
  const resolver = (RESOLVERS as Record<string, DatasetFlagResolver | undefined>)[name]
  assert(resolver, `no resolver for --dataset-name ${name}. This is a bug in servebench.`)
  return resolver
}
