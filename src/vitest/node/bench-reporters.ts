import * as vitestNode from 'vitest/node'

type ReporterClass = new (options?: Record<string, unknown>) => object
type TaskLike = { type?: string; meta?: { benchmark?: boolean }; tasks?: TaskLike[] }

// A namespace import: a name missing from another Vitest version is `undefined`, not a load error.
const exported = vitestNode as unknown as Record<string, unknown>
const TEST_REPORTERS = (exported.ReportersMap ?? {}) as Record<string, ReporterClass>

/** Vitest reporters that `vitest bench` refuses by name but that servebench constructs for it. */
const LIFTED = ['junit', 'json', 'github-actions', 'tap', 'tap-flat', 'dot'] as const

/**
 * The `benchmark.reporters` of a `vitest bench` run, made to work as under `vitest run`: Vitest
 * loads only `default` and `verbose` by name there (`--reporter=junit` stops with "Failed to load
 * custom Reporter from junit"), so servebench constructs Vitest's own `junit`, `json`,
 * `github-actions`, `tap`, `tap-flat` and `dot` reporters, with `--outputFile` as under `vitest
 * run`. `default` and `verbose` print no empty `BENCH Summary` header when the run has no `bench()`
 * task. With `GITHUB_ACTIONS=true` and no reporter named, `github-actions` is added, as `vitest run`
 * does.
 */
export function benchModeReporters(
  references: readonly unknown[],
  outputFile: string | Record<string, string> | undefined,
  env: NodeJS.ProcessEnv = process.env,
): unknown[] {
  const named = references.length === 0 ? ['default'] : references
  const out = named.map((ref) => {
    if (typeof ref !== 'string') return ref
    if (ref === 'default' || ref === 'verbose') return quietBenchReporter(ref) ?? ref
    const Reporter = (LIFTED as readonly string[]).includes(ref) ? TEST_REPORTERS[ref] : undefined
    if (!Reporter) return ref
    const file = typeof outputFile === 'string' ? outputFile : outputFile?.[ref]
    return new Reporter(file !== undefined ? { outputFile: file } : {})
  })
  const GithubActions = TEST_REPORTERS['github-actions']
  // Vitest's resolved default is ['default'], as when nothing was named.
  const byDefault = references.length === 0 || (references.length === 1 && references[0] === 'default')
  if (env.GITHUB_ACTIONS === 'true' && byDefault && GithubActions) out.push(new GithubActions({}))
  return out
}

function quietBenchReporter(name: 'default' | 'verbose'): object | undefined {
  const Base = exported[name === 'default' ? 'BenchmarkReporter' : 'VerboseBenchmarkReporter'] as
    | (new () => { reportBenchmarkSummary?: (files: TaskLike[]) => void })
    | undefined
  if (typeof Base !== 'function') return undefined
  const summary = Base.prototype.reportBenchmarkSummary
  if (typeof summary !== 'function') return undefined
  class QuietBenchmarkReporter extends Base {
    override reportBenchmarkSummary = (files: TaskLike[]): void => {
      if (files.some(hasBenchTask)) summary.call(this, files)
    }
  }
  return new QuietBenchmarkReporter()
}

function hasBenchTask(task: TaskLike): boolean {
  return task.meta?.benchmark === true || (task.tasks ?? []).some(hasBenchTask)
}
