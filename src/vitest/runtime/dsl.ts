import { workerData } from 'node:worker_threads'
import { type TestContext, test } from 'vitest'
import { HttpClient } from '../../backends/http.ts'
import type { BenchConfig } from '../../config/bench-config.ts'
import { benchConfigFromDsl, configFingerprint, type ServeBenchOptions } from '../../config/from-dsl.ts'
import { EndpointError } from '../../errors.ts'
import type { BenchResult } from '../../report/result-types.ts'
import {
  checkFailureRatio,
  DEFAULT_MAX_FAILURE_RATIO,
  describeFailureRatio,
} from '../../runner/failure-ratio.ts'
import { runBenchmark } from '../../runner/run-benchmark.ts'
import type { ServeBenchMeta, WorkerSettings } from '../shared/meta.ts'

/** Assertions on a finished run; `result` is the Python-schema result with per-request arrays. */
export type Assertions = (result: BenchResult) => void | Promise<void>

/** `serveBench(name, options, assertions?)`: registers one benchmark as a Vitest test. */
export type ServeBenchFn = (name: string, options: ServeBenchOptions, assertions?: Assertions) => void

/** `serveBench.each(cases)(name, options, assertions?)`; `name` may use `%s %d %i %j %#` or `$key`. */
export type ServeBenchEach = <T>(
  cases: readonly T[],
) => (
  name: string,
  options: ServeBenchOptions | ((row: T) => ServeBenchOptions),
  assertions?: (result: BenchResult, row: T) => void | Promise<void>,
) => void

export interface ServeBench extends ServeBenchFn {
  skip: ServeBenchFn
  only: ServeBenchFn
  todo(name: string): void
  skipIf(condition: unknown): ServeBenchFn
  runIf(condition: unknown): ServeBenchFn
  each: ServeBenchEach
}

type TestLike = (
  name: string,
  options: { timeout?: number; meta?: { servebench?: ServeBenchMeta } },
  fn: (context: TestContext) => Promise<void>,
) => void

/**
 * Declares a serving benchmark. The run happens when Vitest runs the task, under `vitest bench`
 * and `vitest run` alike; options are validated now, when the file is collected.
 */
export const serveBench: ServeBench = Object.assign(define(test), {
  skip: define(test.skip),
  only: define(test.only),
  todo: (name: string) => test.todo(name),
  skipIf: (condition: unknown) => define(test.skipIf(condition)),
  runIf: (condition: unknown) => define(test.runIf(condition)),
  each: eachOf(define(test)),
})

function define(api: TestLike): ServeBenchFn {
  return (name, options, assertions) => {
    const settings = workerSettings()
    const config = benchConfigFromDsl(options, {
      name,
      ...(settings.baseUrl !== undefined ? { defaultBaseUrl: settings.baseUrl } : {}),
      simulator: settings.simulator,
      simulatorTokenizer: settings.simulatorTokenizer,
      env: process.env,
    })
    const fingerprint = configFingerprint(config)
    const collected: ServeBenchMeta = {
      name,
      fingerprint,
      verdicts: [],
      ...(config.goodput ? { goodput: config.goodput } : {}),
    }
    const testOptions = {
      meta: { servebench: collected },
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    }
    api(name, testOptions, async ({ task, signal }) => {
      const meta: ServeBenchMeta = { ...collected, verdicts: [] }
      task.meta.servebench = meta
      const outcome = await runBenchmark(config, { signal, httpClient: clientFor(config) })
      // Stored before the assertions run, so a missed SLO still reports its numbers.
      meta.result = outcome.result
      meta.interrupted = outcome.interrupted
      assertSomeAnswered(config, outcome.result)
      assertFailureRatio(config, outcome.records)
      await assertions?.(outcome.result)
    })
  }
}

function eachOf(fn: ServeBenchFn): ServeBenchEach {
  return (cases) => (name, options, assertions) => {
    cases.forEach((row, index) => {
      const opts = typeof options === 'function' ? options(row) : options
      fn(formatName(name, row, index), opts, assertions ? (result) => assertions(result, row) : undefined)
    })
  }
}

/** Vitest's `.each` name formatting, the common subset: `%s %d %i %f %j %o %# %%` and `$key`. */
export function formatName(template: string, row: unknown, index: number): string {
  const args = Array.isArray(row) ? [...row] : [row]
  let out = template.replace(/%[sdifjo#%]/g, (spec) => {
    if (spec === '%%') return '%'
    if (spec === '%#') return String(index)
    const v = args.shift()
    if (spec === '%d' || spec === '%f') return String(Number(v))
    if (spec === '%i') return String(Math.trunc(Number(v)))
    if (spec === '%j' || spec === '%o') return JSON.stringify(v)
    return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v))
  })
  if (row !== null && typeof row === 'object' && !Array.isArray(row)) {
    out = out.replace(/\$([A-Za-z_][\w.]*)/g, (whole, path: string) => {
      let v: unknown = row
      for (const key of path.split('.')) v = (v as Record<string, unknown> | undefined)?.[key]
      return v === undefined ? whole : typeof v === 'string' ? v : JSON.stringify(v)
    })
  }
  return out.replace(/\$index/g, String(index))
}

function workerSettings(): WorkerSettings {
  const fromPool = (workerData as { servebench?: WorkerSettings } | null)?.servebench
  if (fromPool) return fromPool
  const env = process.env.SERVEBENCH_BASE_URL
  return { ...(env ? { baseUrl: env } : {}), simulator: false, simulatorTokenizer: 'cl100k_base' }
}

function assertSomeAnswered(config: BenchConfig, result: BenchResult): void {
  if (result.completed > 0 || result.failed === 0) return
  const url = `${config.endpoint.baseUrl}${config.endpoint.endpointPath}`
  const first = result.errors.find((e) => e !== '') ?? 'unknown error'
  throw new EndpointError(
    'SERVEBENCH_ENDPOINT_UNREACHABLE',
    `All ${result.failed} requests to ${url} failed; first error: ${first}`,
  )
}

// Fault handling (issue 6): where the CLI only warns above --max-failure-ratio, a benchmark fails.
function assertFailureRatio(
  config: BenchConfig,
  records: ReadonlyArray<{ success: boolean; error: string }>,
): void {
  const failed = records.filter((r) => !r.success)
  const threshold = config.failOnErrorRatio ?? config.maxFailureRatio ?? DEFAULT_MAX_FAILURE_RATIO
  const check = checkFailureRatio(
    { completed: records.length - failed.length, failed: failed.length },
    threshold,
  )
  if (!check.exceeded) return
  throw new Error(`${describeFailureRatio(check)}; first error: ${failed[0]?.error ?? 'unknown error'}`)
}

const CLIENTS = Symbol.for('servebench.httpClients')

// One client per pool size, kept on globalThis for the worker's lifetime: module state may be
// re-evaluated per file, and warm connections are the point.
function clientFor(config: BenchConfig): HttpClient {
  const g = globalThis as { [CLIENTS]?: Map<string, HttpClient> }
  const clients = g[CLIENTS] ?? new Map<string, HttpClient>()
  g[CLIENTS] = clients
  const connections = config.load.maxConcurrency ?? config.numPrompts
  const key = `${connections}|${config.endpoint.insecure}`
  let client = clients.get(key)
  if (!client) {
    client = new HttpClient({ connections, insecure: config.endpoint.insecure })
    clients.set(key, client)
  }
  return client
}
