import { isServebenchBenchFn, type VitestBenchResult } from './vitest-bench.ts'

/** What Vitest 5 hands a benchmark provider: the registrations of one test (`BenchmarkGroup`). */
export interface ProviderGroup {
  test: { fullTestName: string; context: { signal: AbortSignal } }
  config: { retainSamples?: boolean }
  registrations: Array<{ name: string; fn: () => unknown; fnOpts?: object }>
  options?: object
}

/**
 * servebench's Vitest 5 benchmark provider (`benchmark.provider`, which Vitest marks experimental),
 * set by the plugin on Vitest 5. A serveBench run is measured by servebench and handed over as one
 * result, so it shows in Vitest's benchmark table and its `writeResult` / `bench.from()` files.
 * Plain `bench()` registrations in the same project run on tinybench, as Vitest's built-in
 * provider runs them.
 * @experimental
 */
const provider = {
  async run(group: ProviderGroup): Promise<VitestBenchResult[]> {
    const own = group.registrations.filter((r) => isServebenchBenchFn(r.fn))
    if (own.length === group.registrations.length) {
      return own.map((r) => ({ ...(r.fn() as VitestBenchResult), name: r.name }))
    }
    if (own.length > 0) {
      throw new Error(
        `servebench: "${group.test.fullTestName}" compares serveBench() runs with bench() functions; compare each kind on its own`,
      )
    }
    return runOnTinybench(group)
  },
}
export default provider

interface TinybenchTask {
  name: string
  result: { state: string; error?: unknown } & Record<string, unknown>
}

// Vitest 5's built-in provider (createDefaultBenchmarkProvider), which Vitest does not export.
async function runOnTinybench(group: ProviderGroup): Promise<VitestBenchResult[]> {
  let Bench: new (
    options: object,
  ) => {
    add(name: string, fn: () => unknown, options?: object): void
    run(): Promise<unknown>
    tasks: TinybenchTask[]
  }
  try {
    // tinybench comes with Vitest 5; it is not a servebench dependency.
    ;({ Bench } = (await import(TINYBENCH)) as { Bench: typeof Bench })
  } catch (error) {
    throw new Error(
      `servebench: bench() in a servebench project runs on tinybench, which could not be loaded (${String(error)}); install it (npm i -D tinybench) or move the bench() functions to a project without the servebench() plugin`,
    )
  }
  const bench = new Bench({
    signal: group.test.context.signal,
    name: group.test.fullTestName,
    retainSamples: group.config.retainSamples ?? false,
    ...group.options,
    now: () => performance.now(),
  })
  for (const { name, fn, fnOpts } of group.registrations) bench.add(name, fn, fnOpts)
  await bench.run()
  const errors = bench.tasks.filter((t) => t.result.state === 'errored').map((t) => t.result.error)
  if (errors.length === 1) throw errors[0]
  if (errors.length > 1) throw new AggregateError(errors, 'Some benchmarks failed')
  return bench.tasks.map((t) => {
    if (t.result.state !== 'completed') {
      throw new Error(`task "${t.name}" did not complete: received "${t.result.state}"`)
    }
    return { ...(t.result as unknown as VitestBenchResult), name: t.name }
  })
}

// A variable, so that the type check does not resolve Vitest 4's tinybench 2.
const TINYBENCH: string = 'tinybench'
