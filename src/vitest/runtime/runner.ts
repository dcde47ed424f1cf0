import type { RunnerTask, RunnerTestSuite } from 'vitest'
import * as vitest from 'vitest'
import { lateResults } from './late-results.ts'
import { noteBenchmarkProject } from './vitest-bench.ts'

// Vitest 4 runs `bench()` files with its BenchmarkRunner. Vitest 5 has none (it registers
// benchmarks inside tests, and its runner runs them): read through the namespace, a missing
// export is `undefined` rather than a link error.
const BenchmarkRunner = (vitest as unknown as { BenchmarkRunner?: BenchmarkRunnerStatics }).BenchmarkRunner

interface BenchmarkRunnerStatics {
  prototype: { importTinybench: unknown; runSuite: (suite: RunnerTestSuite) => Promise<void> }
}

/**
 * The Vitest runner of servebench projects. serveBench tasks are ordinary test tasks, so Vitest's
 * own test loop runs them in both `vitest run` and `vitest bench`; only a file of plain `bench()`
 * micro-benchmarks is handed to the benchmark runner's suite loop:
 * @vitest/runner (packages/runner/src/run.ts) reads `runner.runSuite` after `onBeforeRunSuite`, and uses its own loop when it
 * is undefined. Relies on Vitest internals; the plugin checks the Vitest version at start-up.
 */
export default class ServebenchRunner extends vitest.TestRunner {
  private benchFile = false
  // Used by the borrowed BenchmarkRunner.runSuite (Vitest 4).
  importTinybench = BenchmarkRunner?.prototype.importTinybench

  get runSuite(): ((suite: RunnerTestSuite) => Promise<void>) | undefined {
    return this.benchFile ? BenchmarkRunner?.prototype.runSuite : undefined
  }

  override async onBeforeRunSuite(suite: RunnerTestSuite): Promise<void> {
    if (suite.file === suite) {
      if (BenchmarkRunner === undefined) noteBenchmarkProject(this.config.benchmark)
      const { bench, serveBench } = countTasks(suite)
      if (this.config.mode === 'benchmark' && bench > 0 && serveBench > 0) {
        // Failing the file here (not throwing) makes @vitest/runner skip its tasks and report it.
        suite.result = {
          state: 'fail',
          errors: [
            {
              name: 'Error',
              message:
                'servebench: this file mixes serveBench() and bench(); move the bench() micro-benchmarks to their own file',
            },
          ],
        }
        this.benchFile = false
        return
      }
      this.benchFile = BenchmarkRunner !== undefined && this.config.mode === 'benchmark' && bench > 0
    }
    await super.onBeforeRunSuite(suite)
  }

  override async onAfterRunSuite(suite: RunnerTestSuite): Promise<void> {
    if (suite.file === suite) await this.sendLateResults(suite)
    await super.onAfterRunSuite(suite)
  }

  // A cancelled benchmark's task was reported before its run drained: wait for the run (the drain
  // is bounded) and report the task again, so the reporter writes what was measured.
  private async sendLateResults(file: RunnerTestSuite): Promise<void> {
    const late = lateResults()
    for (const [task, measured] of late) {
      if (task.file !== file) continue
      late.delete(task)
      await measured.catch(() => undefined)
      // The assertions' continuation stores the result right after the run settles.
      await new Promise((resolve) => setImmediate(resolve))
      // Vitest patches onTaskUpdate onto the runner instance; it sends [id, result, meta] packs.
      const send = (this as { onTaskUpdate?: (packs: unknown[], events: unknown[]) => Promise<void> })
        .onTaskUpdate
      await send?.call(this, [[task.id, task.result, task.meta]], [])
    }
  }
}

function countTasks(suite: RunnerTestSuite): { bench: number; serveBench: number } {
  let bench = 0
  let serveBench = 0
  const visit = (tasks: RunnerTask[]): void => {
    for (const t of tasks) {
      if (t.type === 'suite') visit(t.tasks)
      else if (t.meta.servebench) serveBench++
      else if ((t.meta as { benchmark?: boolean }).benchmark) bench++
    }
  }
  visit(suite.tasks)
  return { bench, serveBench }
}
