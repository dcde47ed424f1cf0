/**
 * `servebench serve` flags → `BenchConfig` with every dataset's resolver: the config core
 * (`config/resolve.ts`) bound to the dataset registry (`datasets/registry.ts`). Both doors call it.
 */
import type { BenchConfig } from '../config/bench-config.ts'
import { type FlagStatusLookup, type FlagValues, resolveFlags } from '../config/resolve.ts'
import { DATASET_RESOLVERS } from '../datasets/registry.ts'
import { ConfigError } from '../errors.ts'
import { foreignDatasetFlags } from './dataset-flag-owners.ts'
import { checkInputValues } from './input-checks.ts'

/**
 * Turn `vllm bench serve` flags into a validated `BenchConfig`. Every problem is reported at once,
 * each naming its flag and what would be valid.
 */
export function resolveServeFlags(
  flags: FlagValues,
  env: Readonly<Record<string, string | undefined>> = process.env,
  statusOf: FlagStatusLookup = () => 'supported',
): BenchConfig {
  const name = flags.get('--dataset-name')
  const foreign = foreignDatasetFlags(flags, typeof name === 'string' ? name : 'random')
  let config: BenchConfig
  try {
    config = resolveFlags(flags, DATASET_RESOLVERS, env, statusOf)
  } catch (error) {
    if (error instanceof ConfigError && foreign.length > 0)
      throw new ConfigError([...error.issues, ...foreign])
    throw error
  }
  const issues = [...foreign, ...checkInputValues(config)]
  if (issues.length > 0) throw new ConfigError(issues)
  return config
}
