import type { RunnerTestCase } from 'vitest'

const LATE = Symbol.for('servebench.lateResults')

/**
 * Benchmarks whose task was cancelled while they ran (Ctrl+C in watch mode, `--bail`), with the run
 * that is still draining. Vitest settles a cancelled task at once; the runner awaits each run when
 * its file ends and sends the task's meta again, result included. On `globalThis`: the runner and
 * the suites load this module in different module graphs.
 */
export function lateResults(): Map<RunnerTestCase, Promise<unknown>> {
  const g = globalThis as { [LATE]?: Map<RunnerTestCase, Promise<unknown>> }
  g[LATE] ??= new Map()
  return g[LATE]
}
