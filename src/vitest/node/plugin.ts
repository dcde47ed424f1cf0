import { resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isCI } from 'std-env'
import type { Plugin } from 'vite'
import type {} from 'vitest/config'
import { version as vitestVersion } from 'vitest/node'
import { ENDPOINT_FIELDS } from '../../config/dsl-fields.ts'
import type { EndpointOptions } from '../../config/dsl-options.ts'
import { unknownKeyIssues } from '../../config/unknown-keys.ts'
import { resolveVerdictOptions, type VerdictOptions } from '../../config/verdict-options.ts'
import { ConfigError } from '../../errors.ts'
import { escapeRegExp } from '../../regexp.ts'
import type { SimOptions } from '../../sim/options.ts'
import type { UpdateMode } from '../shared/meta.ts'
import { benchModeReporters } from './bench-reporters.ts'
import { EndpointProvider, servebenchPool } from './pool.ts'
import {
  ServebenchReporter,
  type ServebenchReporterOptions,
  type TimelineReporterOption,
} from './reporter.ts'

/** Options of `servebench()`. Every field is optional. */
export interface ServebenchPluginOptions {
  /** Base URL of the endpoint under test. @default process.env.SERVEBENCH_BASE_URL, else the embedded simulator */
  baseUrl?: string
  /**
   * Endpoint fields every suite starts from, as `endpoint({...})` takes them (`backend`, `model`,
   * `headers`, …); a suite's own `endpoint({...})` fields win. @default {}
   */
  endpoint?: EndpointOptions
  /** Model of every suite that names none: `endpoint.model`'s shorthand. @default the first model of `/v1/models` */
  model?: string
  /** Tokenizer of every suite that names none: `endpoint.tokenizer`'s shorthand. @default the model id (`cl100k_base` on the simulator) */
  tokenizer?: string
  /** Folder of result files and summaries, relative to the Vitest root. @default 'servebench-results' */
  resultDir?: string
  /** Folder of `toMatchBaseline` baselines, relative to the Vitest root. @default '__baselines__' */
  baselineDir?: string
  /** Options of the embedded simulator, used when no base URL is set. @default {} */
  simulator?: SimOptions
  /** What the servebench reporter writes; `false` adds no reporter. @default {} (everything) */
  reporters?: ServebenchReporterOptions | false
  /** Timeout of each benchmark unless the suite sets one. @default 300_000 */
  testTimeoutMs?: number
  /**
   * Write a `--plot-timeline` page, `<result file>.timeline.html`, per benchmark next to its result;
   * `{ itlThresholdsMs: [25, 50] }` sets the highlighted ITL bands. @default false
   */
  timeline?: TimelineReporterOption
  /**
   * Write a `--plot-dataset-stats` figure, `<result file>.dataset_stats.png`, per benchmark next to
   * its result: histograms of prompt, output and total tokens, and the tokens of each request. @default false
   */
  datasetStats?: boolean
  /**
   * Defaults of every suite's `verdicts` options (a benchmark's own win, the budget field by
   * field): for example `{ clientCheck: 'warn' }` on a machine known to be shared. See
   * docs/dsl.md#verdicts. @default {}
   */
  verdicts?: VerdictOptions
}

/** The Vitest versions servebench's runner and pool are verified with (the `vitest` peer range). */
export const SUPPORTED_VITEST = '^4.1.12 || ^5.0.0'

const REPORTER_ADDED = Symbol.for('servebench.reporterAdded')
const BENCH_REPORTERS_LIFTED = Symbol.for('servebench.benchReportersLifted')

/**
 * The Vitest plugin: servebench's pool, runner, matchers, reporter and timeouts; one benchmark at a
 * time. Add it to the project that holds the `*.bench.ts` suites.
 */
export function servebench(options: ServebenchPluginOptions = {}): Plugin {
  assertCompatibleVitestVersion(vitestVersion)
  const vitestMajor = Number(vitestVersion.split('.')[0])
  assertTimelineOption(options.timeline)
  resolveVerdictOptions(options.verdicts, 'servebench({ verdicts })')
  const endpointDefaults = suiteEndpointDefaults(options)
  const endpoints = new EndpointProvider({
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(options.simulator !== undefined ? { simulator: options.simulator } : {}),
    ...(endpointDefaults !== undefined ? { endpointDefaults } : {}),
  })
  return {
    name: 'servebench',
    config(user) {
      const test = user.test ?? {}
      return {
        test: {
          pool: servebenchPool(endpoints),
          runner: runtimeFile('runner'),
          setupFiles: [runtimeFile('setup')],
          testTimeout: test.testTimeout ?? options.testTimeoutMs ?? 300_000,
          hookTimeout: test.hookTimeout ?? 120_000,
          // Load tests must never overlap, and one reused worker keeps connections warm.
          fileParallelism: false,
          maxWorkers: 1,
          isolate: test.isolate ?? false,
          // servebench's built files load natively, as from an install under node_modules, also
          // when the package is linked or self-referenced: Vite's transform of its ~280 modules
          // cost about 2 s of CPU per run.
          server: { deps: { external: [OWN_DIST] } },
          // The file and line of each serveBench(...) call, for GitHub annotations.
          includeTaskLocation: test.includeTaskLocation ?? true,
          // A failed check points at the user's assertion, not at servebench's own frames.
          onStackTrace: (error, frame) =>
            !OWN_FILES.some((dir) => frame.file.startsWith(dir)) &&
            (test.onStackTrace?.(error, frame) ?? true),
          benchmark: {
            ...(test.benchmark?.include ? {} : { include: ['**/*.bench.?(c|m)[jt]s?(x)'] }),
            // Vitest 5: serveBench runs reach Vitest's benchmark table through servebench's provider.
            ...(vitestMajor >= 5 && !(test.benchmark as { provider?: string } | undefined)?.provider
              ? { provider: runtimeFile('provider') }
              : {}),
          } as NonNullable<typeof test.benchmark>,
        },
      }
    },
    configureVitest({ vitest, project }) {
      const update = vitest.config.snapshotOptions.updateSnapshot as UpdateMode
      const root = vitest.config.root
      project.provide('servebench:update', update)
      project.provide('servebench:ci', isCI)
      project.provide('servebench:root', root)
      project.provide('servebench:verdicts', options.verdicts ?? {})
      project.provide('servebench:baselineDir', resolve(root, options.baselineDir ?? '__baselines__'))
      vitest.onClose(() => endpoints.close())
      assertUpdateValue((vitest.config as { update?: unknown }).update)
      const flagged = vitest as unknown as { [REPORTER_ADDED]?: boolean; [BENCH_REPORTERS_LIFTED]?: boolean }
      const bench = vitest.config.benchmark
      if (vitest.config.mode === 'benchmark' && bench && !flagged[BENCH_REPORTERS_LIFTED]) {
        flagged[BENCH_REPORTERS_LIFTED] = true
        bench.reporters = benchModeReporters(
          [bench.reporters ?? []].flat(),
          bench.outputFile,
        ) as typeof bench.reporters
      }
      if (options.reporters === false || flagged[REPORTER_ADDED]) return
      flagged[REPORTER_ADDED] = true
      // Pushed here, not set in `config`: setting reporters there would replace Vitest's defaults.
      const reporter = new ServebenchReporter({
        baselineDir: resolve(root, options.baselineDir ?? '__baselines__'),
        ...(options.resultDir !== undefined ? { resultDir: options.resultDir } : {}),
        ...(options.timeline !== undefined ? { timeline: options.timeline } : {}),
        ...(options.datasetStats !== undefined ? { datasetStats: options.datasetStats } : {}),
        ...options.reporters,
      })
      if (vitest.config.mode === 'benchmark' && bench)
        bench.reporters = [...[bench.reporters ?? []].flat(), reporter]
      else vitest.config.reporters.push(reporter)
    },
  }
}

/** Throws when the installed Vitest is outside {@link SUPPORTED_VITEST}: the runner relies on its internals. */
export function assertCompatibleVitestVersion(version: string): void {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version)
  const [major, minor, patch] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0]
  const ok = (major === 4 && (minor > 1 || (minor === 1 && patch >= 12))) || major === 5
  if (!ok) {
    throw new Error(
      `servebench supports vitest ${SUPPORTED_VITEST} (found ${version}). Install a supported version: npm i -D vitest@5 (Node 22 or later), or npm i -D vitest@4.1.12 on Node 20`,
    )
  }
}

/**
 * Throws when `-u` took a file filter as its value: `vitest bench -u gate` reads as `--update=gate`,
 * which Vitest treats as `all` for every file, so every baseline would be rewritten.
 */
export function assertUpdateValue(update: unknown): void {
  if (typeof update !== 'string' || ['all', 'new', 'none', 'true', 'false', ''].includes(update)) return
  throw new TypeError(
    `-u took "${update}" as its value (--update accepts all, new or none), so "${update}" is no file filter and every baseline would be rewritten. To update one file's baselines, put the filter first: vitest bench --run ${update} -u`,
  )
}

/** Throws on a `timeline` option whose ITL thresholds are not two ascending positive numbers. */
export function assertTimelineOption(timeline: unknown): void {
  if (timeline === undefined || typeof timeline === 'boolean') return
  const t = (timeline as { itlThresholdsMs?: unknown } | null)?.itlThresholdsMs
  const ok =
    typeof timeline === 'object' &&
    timeline !== null &&
    (t === undefined ||
      (Array.isArray(t) &&
        t.length === 2 &&
        t.every((v) => typeof v === 'number' && Number.isFinite(v) && v > 0) &&
        t[0] < t[1]))
  if (!ok) {
    throw new TypeError(
      `servebench({ timeline }) must be true, false or { itlThresholdsMs: [low, high] } with 0 < low < high in ms, such as [25, 50] (got ${JSON.stringify(timeline)})`,
    )
  }
}

/**
 * The plugin's `endpoint`, `model` and `tokenizer` as one endpoint default; unknown endpoint keys
 * are a `ConfigError` naming them, with a "did you mean".
 */
export function suiteEndpointDefaults(options: ServebenchPluginOptions): EndpointOptions | undefined {
  const { endpoint, model, tokenizer } = options
  if (endpoint === undefined && model === undefined && tokenizer === undefined) return undefined
  if (
    endpoint !== undefined &&
    (endpoint === null || typeof endpoint !== 'object' || Array.isArray(endpoint))
  ) {
    throw new ConfigError([
      { path: 'servebench({ endpoint })', message: 'must be an object of endpoint() options' },
    ])
  }
  const { kind: _kind, ...fields } = (endpoint ?? {}) as EndpointOptions & { kind?: unknown }
  const issues = unknownKeyIssues(
    fields,
    Object.keys(ENDPOINT_FIELDS).concat('apiKey'),
    (key) => `servebench({ endpoint }).${key}`,
    'endpoint()',
  )
  if (issues.length > 0) throw new ConfigError(issues)
  return {
    ...fields,
    ...(model !== undefined ? { model } : {}),
    ...(tokenizer !== undefined ? { tokenizer } : {}),
  }
}

// servebench's own files: `dist/` as installed, and `src/`, where its source maps point.
const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const OWN_FILES = [resolve(PACKAGE_ROOT, 'src') + sep, resolve(PACKAGE_ROOT, 'dist') + sep]
const OWN_DIST = new RegExp(`^${escapeRegExp(resolve(PACKAGE_ROOT, 'dist') + sep)}`)

function runtimeFile(name: 'runner' | 'setup' | 'provider'): string {
  const here = import.meta.url
  const ext = here.endsWith('.ts') ? 'ts' : 'js'
  return fileURLToPath(new URL(`../runtime/${name}.${ext}`, here))
}
