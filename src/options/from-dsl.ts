/**
 * `serveBench(name, options)` → `BenchConfig`, through the same resolver as `servebench serve`:
 * the DSL door (`dsl-door.ts`) turns the options into flag values, `resolveServeFlags` validates
 * them, and every issue is named back in DSL words (`serveBench('x').load.maxConcurrency`).
 */

import type { BenchConfig } from '../config/bench-config.ts'
import { DEFAULT_DSL_PATHS } from '../config/dsl-fields.ts'
import type { DslContext, ServeBenchOptions } from '../config/dsl-options.ts'
import { DATASET_REGISTRY } from '../datasets/registry.ts'
import { ConfigError, type ConfigIssue } from '../errors.ts'
import { dslToFlags } from './dsl-door.ts'
import { resolveServeFlags } from './serve-flags.ts'

export { configFingerprint } from '../config/fingerprint.ts'

/**
 * Turns DSL options into a validated {@link BenchConfig}. Throws one {@link ConfigError} that lists
 * every problem, each path starting at the benchmark: `serveBench('short chat').load.rate`.
 */
export function benchConfigFromDsl(options: ServeBenchOptions, ctx: DslContext): BenchConfig {
  return resolveDsl(options, ctx).config
}

/**
 * {@link benchConfigFromDsl}, plus `reword`, which puts a later error's flag names (a dataset
 * file that `--dataset-path` names, "Pass --model") into this benchmark's DSL words.
 */
export function resolveDsl(
  options: ServeBenchOptions,
  ctx: DslContext,
): { config: BenchConfig; reword: (text: string) => string } {
  const door = dslToFlags(options, ctx)
  const rename = dslNamer(ctx.name, door.paths)
  let config: BenchConfig | undefined
  let issues = door.issues
  try {
    config = resolveServeFlags(door.flags, door.env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    issues = [...issues, ...error.issues.map(rename)]
  }
  if (issues.length > 0 || config === undefined) throw new ConfigError(issues)
  if (door.traceTimeScale !== undefined && config.dataset.kind === 'timed_trace') {
    config.dataset = { ...config.dataset, secMultiplier: config.dataset.secMultiplier * door.traceTimeScale }
  }
  // The Vitest face has no progress bar.
  config.disableTqdm = true
  return { config, reword: (text) => rename({ path: '', message: text }).message }
}

/**
 * Renames an issue found on flags into DSL words: its path (`--max-concurrency` →
 * `serveBench('x').load.maxConcurrency`) and the flags its message mentions.
 */
export function dslNamer(
  name: string,
  paths: ReadonlyMap<string, string>,
): (issue: ConfigIssue) => ConfigIssue {
  const pathOf = (flag: string): string | undefined => paths.get(flag) ?? DEFAULT_DSL_PATHS[flag]
  const message = (text: string): string =>
    text
      .replace(/pass --no-self-timed/g, 'set dataset.selfTimed: false')
      .replace(/--backend ([\w-]+)/g, "endpoint({ backend: '$1' })")
      .replace(/--dataset-name ([\w-]+)/g, (whole, dataset: string) => {
        if (dataset === 'random' && paths.has('--multi-turn')) return 'datasets.multiTurn() without a source'
        const builder = builderOf(dataset)
        return builder ? `datasets.${builder}()` : whole
      })
      .replace(/--[a-z][a-z0-9-]*/g, (flag) => pathOf(flag) ?? flag)
  return (issue) => {
    const path = issue.path.startsWith('--') ? pathOf(issue.path) : undefined
    return {
      path: path !== undefined ? `serveBench('${name}').${path}` : issue.path,
      message: message(issue.message),
    }
  }
}

function builderOf(datasetName: string): string | undefined {
  const canonical = datasetName.replaceAll('-', '_')
  for (const spec of DATASET_REGISTRY) {
    if (spec.kind === 'multi-turn') continue
    if (spec.datasetName === datasetName || spec.datasetName === canonical) return spec.builder
  }
  return undefined
}
