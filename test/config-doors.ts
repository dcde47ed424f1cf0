/**
 * The two configuration doors as the unit tests drive them: `serve` argv resolved as the CLI
 * resolves it (cli/commands/serve.ts), and the issues a door refuses, one `path message` line each.
 */
import { findFlag } from '../src/cli/flags.ts'
import { parseArgs } from '../src/cli/parse-args.ts'
import type { BenchConfig } from '../src/config/bench-config.ts'
import { ConfigError } from '../src/errors.ts'
import { resolveServeFlags } from '../src/options/serve-flags.ts'

/** `servebench serve` argv to its config, with the flag table's statuses; throws a ConfigError. */
export function resolveArgv(argv: string[], env: Record<string, string> = {}): BenchConfig {
  return resolveServeFlags(parseArgs(argv), env, (name) => findFlag(name)?.status)
}

/** What `run` refuses as `path message` lines; [] when it accepts. Any other error is rethrown. */
export function issuesOf(run: () => unknown): string[] {
  try {
    run()
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path} ${i.message}`)
    throw error
  }
  return []
}

/** The issues of {@link resolveArgv}. */
export function argvIssues(argv: string[]): string[] {
  return issuesOf(() => resolveArgv(argv))
}
