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

const REPLICATES = Symbol.for('servebench.baselineReplicates')

/**
 * The extra whole runs a benchmark made to record a multi-run baseline (`verdicts.baselineRuns`),
 * for `toMatchBaseline` to store with the run it is given. Kept in the worker, out of task meta
 * (which is sent to the main process).
 */
export function baselineReplicates(): WeakMap<RunnerTestCase, unknown[]> {
  const g = globalThis as { [REPLICATES]?: WeakMap<RunnerTestCase, unknown[]> }
  g[REPLICATES] ??= new WeakMap()
  return g[REPLICATES]
}
