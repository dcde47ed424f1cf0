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
  /** Issues with the options as flags, before they are resolved (a face that refuses some); named in DSL words. */
  checkFlags?: (flags: { has(name: string): boolean }) => ConfigIssue[],
): { config: BenchConfig; reword: (text: string) => string } {
  const door = dslToFlags(options, ctx)
  const rename = dslNamer(ctx.name, door.paths, door.words)
  let config: BenchConfig | undefined
  let issues = [...door.issues, ...(checkFlags?.(door.flags) ?? []).map(rename)]
  try {
    config = resolveServeFlags(door.flags, door.env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    issues = [...issues, ...error.issues.map(rename)]
  }
  if (issues.length > 0 || config === undefined) throw new ConfigError(issues)
  const replay = door.dataset?.dsl?.traceReplay
  if (door.traceTimeScale !== undefined && replay) {
    config.dataset = replay.scale(config.dataset, door.traceTimeScale)
  }
  // The Vitest face has no progress bar.
  config.disableTqdm = true
  return { config, reword: (text) => rename({ path: '', message: text }).message }
}

/**
 * Renames an issue found on flags into DSL words: its path (`--max-concurrency` →
 * `serveBench('x').load.maxConcurrency`) and the flags its message mentions, after the texts the
 * dataset's module words itself (`words`: `pass --no-self-timed` → `set dataset.selfTimed: false`).
 */
export function dslNamer(
  name: string,
  paths: ReadonlyMap<string, string>,
  words: ReadonlyArray<readonly [string, string]> = [],
): (issue: ConfigIssue) => ConfigIssue {
  const pathOf = (flag: string): string | undefined => paths.get(flag) ?? DEFAULT_DSL_PATHS[flag]
  const message = (text: string): string =>
    words
      .reduce((out, [from, to]) => out.replaceAll(from, to), text)
      .replace(/--backend ([\w-]+)/g, "endpoint({ backend: '$1' })")
      .replace(/--dataset-name ([\w-]+)/g, (whole, dataset: string) => {
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

/** The builder of a `--dataset-name` (a module that resolves it; multi-turn reads another's). */
function builderOf(datasetName: string): string | undefined {
  const canonical = datasetName.replaceAll('-', '_')
  for (const spec of DATASET_REGISTRY) {
    if (spec.resolve === undefined) continue
    if (spec.datasetName === datasetName || spec.datasetName === canonical) return spec.builder
  }
  return undefined
}
