import { relative, resolve } from 'node:path'
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node'
import { writeSuiteFiles } from '../../report/files/suite-files.ts'
import { SUMMARY_JSON } from '../../report/files/summary-files.ts'
import { benchmarkAnnotations, formatAnnotation } from '../../report/summary/github-annotations.ts'
import type { CollectedBenchmark } from '../../report/summary/summarise.ts'
import { consoleLine, failedCheckLines } from '../../report/summary/summary-console.ts'
import type { ServeBenchMeta } from '../shared/meta.ts'
import { baselineSamples, commitOf } from './report-inputs.ts'

/** The reporter's `timeline` option: `true`, or the ITL thresholds of the page. */
export type TimelineReporterOption = boolean | { itlThresholdsMs?: [number, number] }

/** What the reporter writes; each field defaults on its own (a path-loaded reporter gets `{}`). */
export interface ServebenchReporterOptions {
  /** Folder of the result files and summaries, relative to the Vitest root. @default 'servebench-results' */
  resultDir?: string
  /** One Python-schema result JSON per benchmark. @default true */
  json?: boolean
  /** Keep the per-request arrays in the result files (`--save-detailed`). @default false */
  saveDetailed?: boolean
  /** `servebench-summary.json`: every benchmark, fingerprint and verdict. @default true */
  summary?: boolean
  /** `servebench-summary.md`, also appended to `$GITHUB_STEP_SUMMARY` when set. @default true */
  markdown?: boolean
  /** One console line per benchmark with its key numbers. @default true */
  console?: boolean
  /**
   * A `--plot-timeline` page per benchmark, `<result file>.timeline.html`, next to its result
   * (generation runs; pooling runs have no token stream). @default false
   */
  timeline?: TimelineReporterOption
  /**
   * A `--plot-dataset-stats` figure per benchmark, `<result file>.dataset_stats.png`, next to its
   * result (generation runs; a pooling run has no output lengths). @default false
   */
  datasetStats?: boolean
  /**
   * GitHub Actions annotations on stdout: `::error` for each failed check and `::warning` for each
   * inconclusive or invalid one, at the file and line of its `serveBench(...)`. The same under
   * `vitest run` and `vitest bench`. See docs/ci.md. @default true when `GITHUB_ACTIONS` is `'true'`
   */
  annotations?: boolean
  /**
   * Write JUnit XML of the run's benchmarks to this path, relative to the Vitest root. Works under
   * `vitest bench` too, where Vitest's own `junit` reporter does not. See docs/ci.md. @default false
   */
  junit?: string | false
  /**
   * Each run writes its files into its own folder, `<resultDir>/run-<date>-<time>/`; after a run,
   * the oldest run folders are removed so that this many remain. `Infinity` keeps them all.
   * @default 10
   */
  keepRuns?: number
  /**
   * `servebench-pr-comment.md`: the pull-request comment, one row per checked metric (base, head,
   * change, interval, verdict) under a marker line a workflow updates in place (docs/ci.md).
   * @default true
   */
  prComment?: boolean
  /**
   * `servebench-summary.csv` (one row per benchmark) and `<result file>.requests.csv` (one row per
   * request) next to each result. @default false
   */
  csv?: boolean
  /**
   * Append one JSON line per benchmark to this history file (relative to the Vitest root): commit,
   * date, fingerprint, key metrics, verdicts (docs/reports.md). The commit is `GITHUB_SHA`, else
   * `git rev-parse HEAD`. @default false
   */
  history?: string | false
  /**
   * `servebench-report.html`: one self-contained HTML report of the run (distributions with the
   * SLO bounds, time series, server metrics, and the history trends with `history`). @default false
   */
  html?: boolean
  /**
   * The baseline folder (absolute), set by the plugin: the HTML report draws a benchmark's stored
   * baseline beside its run. @default '<Vitest root>/__baselines__'
   * @experimental
   */
  baselineDir?: string
}

export {
  HTML_REPORT,
  PR_COMMENT_MARKDOWN,
  SUMMARY_CSV,
  SUMMARY_JSON,
  SUMMARY_MARKDOWN,
} from '../../report/files/summary-files.ts'

/**
 * servebench's reporter, in `vitest run` and `vitest bench` alike: at the end of a run it collects
 * each benchmark's test case and task meta as plain data, hands them to the files layer (which
 * decides the summary and writes every file), and prints the console lines and annotations.
 */
export class ServebenchReporter implements Reporter {
  private vitest?: Vitest
  private startedAt = new Date()
  private readonly options: Required<ServebenchReporterOptions>

  constructor(options: ServebenchReporterOptions = {}) {
    this.options = {
      resultDir: options.resultDir ?? 'servebench-results',
      json: options.json ?? true,
      saveDetailed: options.saveDetailed ?? false,
      summary: options.summary ?? true,
      markdown: options.markdown ?? true,
      console: options.console ?? true,
      timeline: options.timeline ?? false,
      datasetStats: options.datasetStats ?? false,
      annotations: options.annotations ?? process.env.GITHUB_ACTIONS === 'true',
      junit: options.junit ?? false,
      keepRuns: options.keepRuns ?? 10,
      prComment: options.prComment ?? true,
      csv: options.csv ?? false,
      history: options.history ?? false,
      html: options.html ?? false,
      baselineDir: options.baselineDir ?? '',
    }
    assertKeepRuns(this.options.keepRuns)
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  onTestRunStart(): void {
    this.startedAt = new Date()
  }

  async onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    _errors: ReadonlyArray<unknown>,
    reason: 'passed' | 'failed' | 'interrupted',
  ): Promise<void> {
    const root = this.vitest?.config.root ?? process.cwd()
    const o = this.options
    const cases: Array<{ testCase: TestCase; meta: ServeBenchMeta; moduleId: string }> = []
    for (const module of modules) {
      for (const testCase of module.children.allTests()) {
        const meta = testCase.meta().servebench
        if (meta) cases.push({ testCase, meta, moduleId: module.moduleId })
      }
    }
    if (cases.length === 0) return
    const collected = cases.map(({ testCase, meta, moduleId }) =>
      this.collect(testCase, meta, relative(root, moduleId), root),
    )
    const shard = this.vitest?.config.shard
    const dir = resolve(root, o.resultDir)
    const { summary, folder } = await writeSuiteFiles(collected, {
      resultDir: dir,
      startedAt: this.startedAt,
      reason,
      json: o.json,
      saveDetailed: o.saveDetailed,
      summary: o.summary,
      markdown: o.markdown,
      timeline: o.timeline,
      datasetStats: o.datasetStats,
      prComment: o.prComment,
      csv: o.csv,
      junit: o.junit === false ? false : resolve(root, o.junit),
      history: o.history === false ? false : { path: resolve(root, o.history), commit: commitOf(root) },
      html: o.html,
      keepRuns: o.keepRuns,
      ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}),
      ...(process.env.GITHUB_STEP_SUMMARY ? { stepSummary: process.env.GITHUB_STEP_SUMMARY } : {}),
      onError: (what, error) => this.reportWriteError(what, error),
    })
    if (o.console) {
      for (const b of summary.benchmarks) {
        this.log(consoleLine(b))
        for (const line of failedCheckLines(b)) this.log(`servebench   ${line}`)
        for (const w of b.warnings ?? []) this.log(`servebench ⚠ ${b.file} › ${b.name}: ${w}`)
      }
    }
    if (o.annotations) {
      summary.benchmarks.forEach((b, i) => {
        const { testCase, moduleId } = cases[i]!
        // GitHub resolves annotation paths from the checkout (GITHUB_WORKSPACE).
        const file = relative(process.env.GITHUB_WORKSPACE ?? process.cwd(), moduleId)
        for (const a of benchmarkAnnotations(b, { file, ...testCase.location })) this.log(formatAnnotation(a))
      })
    }
    this.log(`servebench: results written to ${relative(process.cwd(), folder) || '.'}`)
    const outputJson = this.vitest?.config.mode === 'benchmark' && this.vitest.config.benchmark?.outputJson
    if (outputJson) {
      this.log(
        `servebench: --outputJson lists bench() micro-benchmarks only; serveBench results are in ${relative(process.cwd(), resolve(dir, SUMMARY_JSON))} (Vitest's JSON report of the benchmarks: --reporter=json --outputFile=<file>)`,
      )
    }
  }

  // What the run left on the test case and in its task meta, as plain data.
  private collect(testCase: TestCase, meta: ServeBenchMeta, file: string, root: string): CollectedBenchmark {
    const state = testCase.result().state
    const b: CollectedBenchmark = {
      file,
      name: testCase.fullName,
      state,
      durationMs: testCase.diagnostic()?.duration ?? null,
      errors: (testCase.result().errors ?? []).map((e) => e.message),
      fingerprint: meta.fingerprint,
      verdicts: meta.verdicts,
      ...(meta.invalid ? { invalid: meta.invalid } : {}),
      ...(meta.rounds !== undefined ? { rounds: meta.rounds } : {}),
      warnings: meta.warnings ?? [],
      ...(meta.result ? { result: meta.result } : {}),
      ...(meta.kind ? { kind: meta.kind } : {}),
      ...(meta.capacity ? { capacity: meta.capacity } : {}),
    }
    if (!this.options.html || !meta.result) return b
    const baselineDir = this.options.baselineDir || resolve(root, '__baselines__')
    return { ...b, ...baselineSamples(baselineDir, root, b) }
  }

  private log(line: string): void {
    if (this.vitest) this.vitest.logger.log(line)
    else console.log(line)
  }

  private reportWriteError(what: string, error: unknown): void {
    const line = `servebench: could not write ${what}: ${(error as Error).message}`
    if (this.vitest) this.vitest.logger.error(line)
    else console.error(line)
  }
}

/** Throws on a `keepRuns` that is not a whole number of at least 1 (or `Infinity`). */
export function assertKeepRuns(keep: unknown): void {
  if (keep === Number.POSITIVE_INFINITY || (Number.isInteger(keep) && (keep as number) >= 1)) return
  throw new TypeError(
    `servebench({ reporters: { keepRuns } }) must be a whole number of run folders to keep, at least 1, or Infinity (got ${JSON.stringify(keep) ?? String(keep)})`,
  )
}
