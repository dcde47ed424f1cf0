/** The resolvers and generators of the datasets not yet in a module of their own. */
import type { DatasetFlagResolver } from '../config/dataset-flag-checks.ts'
import type { DatasetModule } from './dataset-module.ts'
import { generateHf } from './hub/hf.ts'
import { generateShareGpt } from './hub/sharegpt.ts'
import { HUB_DATASET_RESOLVERS } from './resolve-hub.ts'

export const LEGACY_RESOLVERS: Readonly<Record<string, DatasetFlagResolver>> = {
  ...HUB_DATASET_RESOLVERS,
}

export const LEGACY_GENERATORS = {
  sharegpt: generateShareGpt,
  hf: generateHf,
} as unknown as Readonly<Record<string, NonNullable<DatasetModule['generate']>>>
