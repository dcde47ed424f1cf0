import { workerData } from 'node:worker_threads'
import { inject, type TestContext, test } from 'vitest'
import { HttpClient } from '../../backends/http.ts'
import type { BenchConfig } from '../../config/bench-config.ts'
import type { ServeBenchOptions } from '../../config/dsl-options.ts'
import { configWorkload } from '../../config/fingerprint.ts'
import { mergeVerdictOptions, resolveVerdictOptions } from '../../config/verdict-options.ts'
import { EndpointError, isUserError } from '../../errors.ts'
import { failedCount } from '../../metrics/result-samples.ts'
import { configFingerprint, resolveDsl } from '../../options/from-dsl.ts'
import { checkFailureRatio, describeFailureRatio } from '../../runner/failure-ratio.ts'
import { endpointHeaders } from '../../runner/model-info.ts'
import { runBenchmark } from '../../runner/run-benchmark.ts'
import { segmentFileOf } from '../../runner/segment-file-of.ts'
import type { ServeBenchMeta, ServeBenchResult, WorkerSettings } from '../shared/meta.ts'
import { type CapacityBenchFn, defineCapacity } from './capacity-bench.ts'
import { dslContextOf } from './dsl-context.ts'
import { baselineReplicates, lateResults } from './late-results.ts'
import { collectProvenance } from './provenance.ts'
import { runInRounds, suiteResult } from './rounds.ts'
import { meanStepLagMs, noteStepLag, readStepLag } from './simulator-lag.ts'
import { replaySegments, suiteSegmentMode, writeSuiteSegment } from './suite-segments.ts'
import { benchmarkTable, servebenchBenchFn } from './vitest-bench.ts'

/**
 * Assertions on a finished run; `result` is the Python-schema result with per-request arrays:
 * the generation shape, or the pooling shape for embeddings, pooling and rerank backends.
 */
export type Assertions = (result: ServeBenchResult) => void | Promise<void>

/** `serveBench(name, options, assertions?)`: registers one benchmark as a Vitest test. */
export type ServeBenchFn = (name: string, options: ServeBenchOptions, assertions?: Assertions) => void

/** `serveBench.each(cases)(name, options, assertions?)`; `name` may use `%s %d %i %j %#` or `$key`. */
export type ServeBenchEach = <T>(
  cases: readonly T[],
) => (
  name: string,
  options: ServeBenchOptions | ((row: T) => ServeBenchOptions),
  assertions?: (result: ServeBenchResult, row: T) => void | Promise<void>,
) => void

export interface ServeBench extends ServeBenchFn {
  /** A capacity search: the highest load at which the SLOs hold (docs/capacity.md). @experimental */
  capacity: CapacityBenchFn
  skip: ServeBenchFn
  only: ServeBenchFn
  todo(name: string): void
  skipIf(condition: unknown): ServeBenchFn
  runIf(condition: unknown): ServeBenchFn
  each: ServeBenchEach
}

/** Vitest 5's `bench` test fixture, as far as servebench uses it (Vitest 4 has none). */
type BenchFixture = (name: string, fn: () => unknown) => { run(): Promise<unknown> }

type TestLike = (
  name: string,
  options: { timeout?: number; meta?: { servebench?: ServeBenchMeta } },
  fn: (context: TestContext & { bench?: BenchFixture }) => Promise<void>,
) => void

/**
 * Declares a serving benchmark. The run happens when Vitest runs the task, under `vitest bench`
 * and `vitest run` alike; options are validated now, when the file is collected.
 */
export const serveBench: ServeBench = Object.assign(define(test), {
  capacity: defineCapacity(test, workerSettings),
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
    const { config, reword } = resolveDsl(options, dslContextOf(name, settings))
    const verdictOptions = resolveVerdictOptions(
      mergeVerdictOptions(inject('servebench:verdicts'), options.verdicts),
      `serveBench('${name}').verdicts`,
    )
    const fingerprint = configFingerprint(config)
    // SERVEBENCH_SEGMENT: send a share and write it; SERVEBENCH_MERGE_SEGMENTS: judge the merged shares.
    const segmentMode = suiteSegmentMode(process.env)
    if (segmentMode?.kind === 'segment') config.segment = segmentMode.segment
    const roundOptions = segmentMode
      ? {
          ...verdictOptions,
          budget: { ...verdictOptions.budget, rounds: 1 },
          retryInvalid: 0,
          baselineRuns: 1,
        }
      : verdictOptions
    const collected: ServeBenchMeta = {
      name,
      fingerprint,
      verdicts: [],
      workload: configWorkload(config),
      confidence: verdictOptions.confidence,
      inconclusivePolicy: verdictOptions.inconclusive,
      ...(config.goodput ? { goodput: config.goodput } : {}),
    }
    const testOptions = {
      meta: { servebench: collected },
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    }
    // The embedded simulator shares this machine: its own lateness is part of the self-check.
    const watchSimulator =
      settings.simulator &&
      verdictOptions.clientCheck !== 'off' &&
      config.endpoint.baseUrl === settings.baseUrl
    // `bench` is destructured so that Vitest 5 sets up its fixture (Vitest reads the parameter).
    api(name, testOptions, async ({ task, signal, bench }) => {
      const meta: ServeBenchMeta = { ...collected, verdicts: [] }
      task.meta.servebench = meta
      // A cancelled run (Ctrl+C in watch mode, --bail) settles the task at once, before the
      // benchmark has drained; the runner waits for the rounds and sends the late result.
      const onAbort = (): void => {
        lateResults().set(task, judging)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      const judging = runInRounds({
        config: verdictOptions.clientCheck === 'off' ? { ...config, clientCheck: 'off' } : config,
        options: roundOptions,
        task,
        meta,
        ...(assertions && segmentMode?.kind !== 'segment' ? { assertions } : {}),
        measure: async (roundConfig) => {
          if (segmentMode?.kind === 'replay') return replaySegments(fingerprint, segmentMode.dir)
          const lagBefore = watchSimulator ? await readStepLag(config.endpoint.baseUrl) : undefined
          const outcome = await runBenchmark(roundConfig, {
            signal,
            httpClient: clientFor(roundConfig),
          }).catch((error: unknown) => {
            // A dataset file or model lookup that fails names its flag; a suite names the DSL field.
            if (isUserError(error) && error instanceof Error) error.message = reword(error.message)
            throw error
          })
          const lagAfter = lagBefore ? await readStepLag(config.endpoint.baseUrl) : undefined
          const lagMs = lagBefore && lagAfter ? meanStepLagMs(lagBefore, lagAfter) : undefined
          if (lagMs !== undefined) noteStepLag(outcome.result, lagMs)
          return outcome
        },
      }).finally(() => signal.removeEventListener('abort', onAbort))
      const judged = await judging
      const { outcome } = judged
      const result: ServeBenchResult = suiteResult(outcome)
      // Stored before the assertions run, so a missed SLO still reports its numbers.
      meta.result = result
      meta.kind = outcome.kind
      meta.interrupted = outcome.interrupted
      meta.rounds = judged.rounds
      if (judged.invalid) meta.invalid = judged.invalid
      if (judged.baselineRuns.length > 0) baselineReplicates().set(task, judged.baselineRuns)
      meta.provenance = await collectProvenance({
        baseUrl: config.endpoint.baseUrl,
        headers: endpointHeaders(config.endpoint),
        tokenizer: (result as { tokenizer_id?: string | null }).tokenizer_id ?? null,
      })
      // The embedded simulator listens on a new port each time: its host says nothing.
      if (settings.simulator && meta.provenance.server) meta.provenance.server.host = 'embedded simulator'
      assertSomeAnswered(config, result)
      // On Vitest 5 under `vitest bench`, the run is also a row of Vitest's benchmark table.
      const table = bench && benchmarkTable()
      if (table) await bench(name, servebenchBenchFn(name, result, table.retainSamples)).run()
      const warning = assertFailureRatio(config, outcome.records)
      const warnings = [...judged.warnings, ...(warning ? [warning] : [])]
      if (warnings.length > 0) meta.warnings = warnings
      const segmentFile = segmentMode?.kind === 'segment' ? segmentFileOf(config, outcome) : undefined
      if (segmentMode?.kind === 'segment' && segmentFile) {
        const path = await writeSuiteSegment(segmentFile, segmentMode.dir)
        const { index, count } = segmentMode.segment
        meta.warnings = [
          ...(meta.warnings ?? []),
          `segment ${index}/${count} written to ${path}; the checks run on the merged segments (SERVEBENCH_MERGE_SEGMENTS)`,
        ]
        return
      }
      try {
        await assertions?.(result)
      } finally {
        // A first run records its baseline rather than being compared: it says so, once.
        const recorded = new Set(meta.verdicts.filter((v) => v.recording === true).map((v) => v.summary))
        if (recorded.size > 0) meta.warnings = [...(meta.warnings ?? []), ...recorded]
      }
      if (meta.invalid) {
        throw new Error(
          `invalid: ${meta.invalid} (the run was retried ${verdictOptions.retryInvalid} time${verdictOptions.retryInvalid === 1 ? '' : 's'})`,
        )
      }
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

function assertSomeAnswered(config: BenchConfig, result: ServeBenchResult): void {
  const failed = failedCount(result)
  if (result.completed > 0 || failed === 0) return
  const url = `${config.endpoint.baseUrl}${config.endpoint.endpointPath}`
  const first = result.errors.find((e) => e !== '') ?? 'unknown error'
  throw new EndpointError(
    'SERVEBENCH_ENDPOINT_UNREACHABLE',
    `All ${failed} requests to ${url} failed; first error: ${first}`,
  )
}

/**
 * Where the CLI only warns above `--max-failure-ratio`, a benchmark fails above `maxFailureRatio`
 * (0.05), or above `failOnErrorRatio` when that is set; `maxFailureRatio` is then a warning, returned.
 */
export function assertFailureRatio(
  config: Pick<BenchConfig, 'maxFailureRatio' | 'failOnErrorRatio'>,
  records: ReadonlyArray<{ success: boolean; error: string }>,
): string | undefined {
  const failed = records.filter((r) => !r.success)
  const counts = { completed: records.length - failed.length, failed: failed.length }
  const firstError = `first error: ${failed[0]?.error ?? 'unknown error'}`
  const maxRatio = config.maxFailureRatio
  if (config.failOnErrorRatio === undefined) {
    const check = checkFailureRatio(counts, maxRatio)
    if (check.exceeded) throw new Error(`${describeFailureRatio(check, 'maxFailureRatio')}; ${firstError}`)
    return undefined
  }
  const verdict = checkFailureRatio(counts, config.failOnErrorRatio)
  if (verdict.exceeded) throw new Error(`${describeFailureRatio(verdict, 'failOnErrorRatio')}; ${firstError}`)
  const warning = checkFailureRatio(counts, maxRatio)
  return warning.exceeded ? `${describeFailureRatio(warning, 'maxFailureRatio')}; ${firstError}` : undefined
}

const CLIENTS = Symbol.for('servebench.httpClients')

// One client per pool size, kept on globalThis for the worker's lifetime: module state may be
// re-evaluated per file, and warm connections are the point.
function clientFor(config: BenchConfig): HttpClient {
  const g = globalThis as { [CLIENTS]?: Map<string, HttpClient> }
  const clients = g[CLIENTS] ?? new Map<string, HttpClient>()
  g[CLIENTS] = clients
  const connections = config.load.maxConcurrency ?? config.numPrompts
  const key = `${connections}|${config.endpoint.insecure}|${config.endpoint.httpTransport ?? 'auto'}`
  let client = clients.get(key)
  if (!client) {
    client = new HttpClient({
      connections,
      insecure: config.endpoint.insecure,
      transport: config.endpoint.httpTransport,
    })
    clients.set(key, client)
  }
  return client
}
