import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve } from 'node:path'
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node'
import { type RunFile, writeRunFiles } from '../../report/files/run-files.ts'
import {
  appendHistory,
  readChartLibrary,
  requestsCsvPath,
  resultPath,
  writeReportFile,
} from '../../report/files/write.ts'
import { buildHtmlReport } from '../../report/html/html-report.ts'
import type { PoolingBenchResult } from '../../report/result/pooling-result.ts'
import type { BenchResult } from '../../report/result/result-types.ts'
import type { RunResult } from '../../report/result/run-result.ts'
import { requestsCsv, summaryCsv } from '../../report/summary/csv.ts'
import { benchmarkAnnotations, formatAnnotation } from '../../report/summary/github-annotations.ts'
import {
  formatHistoryLines,
  type HistoryEntry,
  historyEntries,
  parseHistory,
} from '../../report/summary/history.ts'
import { renderJunitXml } from '../../report/summary/junit.ts'
import { renderMarkdownSummary } from '../../report/summary/markdown.ts'
import { renderPrComment } from '../../report/summary/pr-comment.ts'
import type {
  RunSummary,
  SummaryBenchmark,
  SummaryMetrics,
  VerdictValue,
} from '../../report/summary/run-summary.ts'
import { consoleLine, failedCheckLines } from '../../report/summary/summary-console.ts'
import { worstVerdict } from '../../report/summary/verdict-marks.ts'
import type { ServeBenchMeta, ServeBenchResult } from '../shared/meta.ts'
import { baselineSamples, commitOf } from './report-inputs.ts'
import { createRunFolder, pruneRunFolders } from './run-folder.ts'

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

export const SUMMARY_JSON = 'servebench-summary.json'
export const SUMMARY_MARKDOWN = 'servebench-summary.md'
export const PR_COMMENT_MARKDOWN = 'servebench-pr-comment.md'
export const SUMMARY_CSV = 'servebench-summary.csv'
export const HTML_REPORT = 'servebench-report.html'

/** Writes servebench's results at the end of a Vitest run, in `vitest run` and `vitest bench` alike. */
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
    const dir = resolve(root, this.options.resultDir)
    const cases: Array<{ testCase: TestCase; meta: ServeBenchMeta; moduleId: string }> = []
    for (const module of modules) {
      for (const testCase of module.children.allTests()) {
        const meta = testCase.meta().servebench
        if (meta) cases.push({ testCase, meta, moduleId: module.moduleId })
      }
    }
    if (cases.length === 0) return
    // One folder per run keeps its files together; the summaries and reports are also copied to `dir`.
    let run = ''
    await this.guard('the run folder', async () => {
      run = await createRunFolder(dir, this.startedAt)
    })
    const collected: Collected[] = []
    const annotations: string[] = []
    for (const { testCase, meta, moduleId } of cases) {
      const b = await this.collect(testCase, meta, relative(root, moduleId), dir, run)
      collected.push(b)
      // GitHub resolves annotation paths from the checkout (GITHUB_WORKSPACE).
      const file = relative(process.env.GITHUB_WORKSPACE ?? process.cwd(), moduleId)
      for (const a of benchmarkAnnotations(b, { file, ...testCase.location }))
        annotations.push(formatAnnotation(a))
    }
    const benchmarks = collected.map(({ result: _, ...b }) => b)
    const summary: RunSummary = { date: new Date().toISOString(), reason, benchmarks }
    if (this.options.console) {
      for (const b of benchmarks) {
        this.log(consoleLine(b))
        for (const line of failedCheckLines(b)) this.log(`servebench   ${line}`)
        for (const w of b.warnings) this.log(`servebench ⚠ ${b.file} › ${b.name}: ${w}`)
      }
    }
    if (this.options.annotations) for (const line of annotations) this.log(line)
    const shard = this.vitest?.config.shard
    const markdown = renderMarkdownSummary(summary, shard ? { shard: `${shard.index}/${shard.count}` } : {})
    await this.guard('the run summary', async () => {
      for (const folder of run === '' ? [dir] : [join(dir, run), dir]) {
        if (this.options.summary)
          await writeFile(join(folder, SUMMARY_JSON), `${JSON.stringify(summary, null, 2)}\n`)
        if (this.options.markdown) await writeFile(join(folder, SUMMARY_MARKDOWN), markdown)
        if (this.options.prComment)
          await writeReportFile(join(folder, PR_COMMENT_MARKDOWN), renderPrComment(summary))
      }
      // Appended, so each shard of a sharded run adds its own section.
      const step = process.env.GITHUB_STEP_SUMMARY
      if (this.options.markdown && step) await appendFile(step, `${markdown}\n`)
      if (this.options.csv) {
        const rows = collected.flatMap((b) =>
          b.result ? [{ name: `${b.file} › ${b.name}`, result: b.result }] : [],
        )
        for (const folder of run === '' ? [dir] : [join(dir, run), dir])
          await writeReportFile(join(folder, SUMMARY_CSV), summaryCsv(rows))
      }
    })
    const junit = this.options.junit
    if (junit !== false) {
      await this.guard('the JUnit report', async () => {
        const path = resolve(root, junit)
        await mkdir(dirname(path), { recursive: true })
        await writeFile(path, renderJunitXml(summary))
      })
    }
    const history = this.options.history
    let entries: HistoryEntry[] | undefined
    if (history !== false) {
      await this.guard('the history', async () => {
        const lines = formatHistoryLines(historyEntries(summary, { commit: commitOf(root) }))
        const path = await appendHistory(resolve(root, history), lines)
        if (this.options.html) entries = parseHistory(await readFile(path, 'utf8')).entries
      })
    }
    if (this.options.html) {
      await this.guard('the HTML report', async () => {
        const baselineDir = this.options.baselineDir || resolve(root, '__baselines__')
        const results = collected.flatMap((b) =>
          b.result
            ? [
                {
                  name: `${b.file} › ${b.name}`,
                  result: b.result,
                  verdicts: b.verdicts,
                  ...baselineSamples(baselineDir, root, b),
                },
              ]
            : [],
        )
        const html = buildHtmlReport(
          { results, ...(entries ? { history: entries } : {}) },
          { title: 'servebench run', generatedAt: summary.date, library: await readChartLibrary() },
        )
        for (const folder of run === '' ? [dir] : [join(dir, run), dir])
          await writeReportFile(join(folder, HTML_REPORT), html)
      })
    }
    if (run !== '') {
      await this.guard('old run folders', async () => {
        await pruneRunFolders(dir, this.options.keepRuns, run)
      })
    }
    this.log(`servebench: results written to ${relative(process.cwd(), join(dir, run)) || '.'}`)
    const outputJson = this.vitest?.config.mode === 'benchmark' && this.vitest.config.benchmark?.outputJson
    if (outputJson) {
      this.log(
        `servebench: --outputJson lists bench() micro-benchmarks only; serveBench results are in ${relative(process.cwd(), join(dir, SUMMARY_JSON))} (Vitest's JSON report of the benchmarks: --reporter=json --outputFile=<file>)`,
      )
    }
  }

  private async collect(
    testCase: TestCase,
    meta: ServeBenchMeta,
    file: string,
    resultDir: string,
    run: string,
  ): Promise<Collected> {
    const dir = join(resultDir, run)
    const state = testCase.result().state
    const result = meta.result
    let resultFile: string | null = null
    const label = slug(
      `${basename(file).replace(/\.(bench|test|spec)\.[cm]?[jt]sx?$/, '')}-${testCase.fullName}`,
    )
    const timeline = this.options.timeline
    if (result) {
      const name = testCase.fullName
      const what: Record<RunFile, string> = {
        result: `the result of '${name}'`,
        pytorch: `the PyTorch records of '${name}'`,
        segment: `the segment file of '${name}'`,
        timeline: `the timeline of '${name}'`,
        'dataset-stats': `the dataset statistics plot of '${name}'`,
      }
      const output = { resultDir: dir, saveDetailed: this.options.saveDetailed, appendResult: false }
      const run = runResultOf(meta, result)
      await writeRunFiles(run, {
        output,
        naming: { label },
        result: this.options.json,
        timeline:
          timeline === false
            ? false
            : {
                title: `${file} › ${name}`,
                ...(typeof timeline === 'object' && timeline.itlThresholdsMs
                  ? { itlThresholdsMs: timeline.itlThresholdsMs }
                  : {}),
              },
        datasetStats: this.options.datasetStats,
        onWritten: (written, path) => {
          // Relative to the result directory: `run-…/<name>.json`.
          if (written === 'result') resultFile = relative(resultDir, path)
        },
        // A failure while writing is reported, never thrown over the test results.
        onError: (failed, error) => this.reportWriteError(what[failed], error),
      })
      if (this.options.csv) {
        await this.guard(`the request CSV of '${name}'`, async () => {
          const csv = requestsCsv(run.result)
          if (csv !== undefined)
            await writeReportFile(requestsCsvPath(resultPath(run.result, output, { label })), csv)
        })
      }
    }
    return {
      file,
      name: testCase.fullName,
      state: state === 'pending' ? 'pending' : state,
      verdict: benchmarkVerdict(state, meta),
      ...(meta.invalid ? { invalidReason: meta.invalid } : {}),
      ...(meta.rounds !== undefined ? { rounds: meta.rounds } : {}),
      ...(isRecord(result?.client_health) ? { clientHealth: result.client_health } : {}),
      durationMs: testCase.diagnostic()?.duration ?? null,
      fingerprint: meta.fingerprint,
      resultFile,
      metrics: result ? metricsOf(result) : null,
      verdicts: meta.verdicts,
      errors: (testCase.result().errors ?? []).map((e) => e.message),
      warnings: meta.warnings ?? [],
      ...(result ? { result: { ...result } } : {}),
    }
  }

  private log(line: string): void {
    if (this.vitest) this.vitest.logger.log(line)
    else console.log(line)
  }

  // A failure while writing is reported, never thrown over the test results.
  private async guard(what: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn()
    } catch (error) {
      this.reportWriteError(what, error)
    }
  }

  private reportWriteError(what: string, error: unknown): void {
    const line = `servebench: could not write ${what}: ${(error as Error).message}`
    if (this.vitest) this.vitest.logger.error(line)
    else console.error(line)
  }
}

/** A benchmark as collected: its summary entry, the warnings to print and the result in memory. */
type Collected = SummaryBenchmark & { warnings: string[]; result?: Record<string, unknown> }

/** Throws on a `keepRuns` that is not a whole number of at least 1 (or `Infinity`). */
export function assertKeepRuns(keep: unknown): void {
  if (keep === Number.POSITIVE_INFINITY || (Number.isInteger(keep) && (keep as number) >= 1)) return
  throw new TypeError(
    `servebench({ reporters: { keepRuns } }) must be a whole number of run folders to keep, at least 1, or Infinity (got ${JSON.stringify(keep) ?? String(keep)})`,
  )
}

function runResultOf(meta: ServeBenchMeta, result: ServeBenchResult): RunResult {
  const kind = meta.kind ?? (Array.isArray(result.ttfts) ? 'generation' : 'pooling')
  if (kind === 'pooling') return { kind, result: result as PoolingBenchResult }
  return { kind, result: result as BenchResult }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function benchmarkVerdict(state: string, meta: ServeBenchMeta): VerdictValue | null {
  if (meta.invalid) return 'invalid'
  if (state === 'skipped' || state === 'pending') return null
  const worst = worstVerdict(meta.verdicts.flatMap((v) => [v.verdict, ...v.checks.map((c) => c.verdict)]))
  return state === 'failed' && worst === 'pass' ? 'fail' : worst
}

function metricsOf(r: ServeBenchResult): SummaryMetrics {
  const num = (k: string): number | null => (typeof r[k] === 'number' ? (r[k] as number) : null)
  return {
    completed: r.completed,
    failed: typeof r.failed === 'number' ? r.failed : r.errors.filter((e) => e !== '').length,
    duration_s: r.duration,
    request_throughput: r.request_throughput,
    output_throughput: num('output_throughput'),
    mean_ttft_ms: num('mean_ttft_ms'),
    p99_ttft_ms: num('p99_ttft_ms'),
    mean_tpot_ms: num('mean_tpot_ms'),
    mean_itl_ms: num('mean_itl_ms'),
    mean_e2el_ms: num('mean_e2el_ms'),
    p99_e2el_ms: num('p99_e2el_ms'),
  }
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '')
}
