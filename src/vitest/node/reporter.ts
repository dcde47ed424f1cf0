import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import { basename, join, relative, resolve } from 'node:path'
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node'
import {
  type RunSummary,
  renderMarkdownSummary,
  type SummaryBenchmark,
  type SummaryMetrics,
  type SummaryVerdictValue,
} from '../../report/markdown.ts'
import type { PoolingBenchResult } from '../../report/pooling-result.ts'
import type { BenchResult } from '../../report/result-types.ts'
import { type RunFile, writeRunFiles } from '../../report/run-files.ts'
import type { RunResult } from '../../report/run-result.ts'
import type { ServeBenchMeta, ServeBenchResult } from '../shared/meta.ts'

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
}

export const SUMMARY_JSON = 'servebench-summary.json'
export const SUMMARY_MARKDOWN = 'servebench-summary.md'

/** Writes servebench's results at the end of a Vitest run, in `vitest run` and `vitest bench` alike. */
export class ServebenchReporter implements Reporter {
  private vitest?: Vitest
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
    }
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  async onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    _errors: ReadonlyArray<unknown>,
    reason: 'passed' | 'failed' | 'interrupted',
  ): Promise<void> {
    const root = this.vitest?.config.root ?? process.cwd()
    const dir = resolve(root, this.options.resultDir)
    const benchmarks: Array<SummaryBenchmark & { warnings: string[] }> = []
    for (const module of modules) {
      for (const testCase of module.children.allTests()) {
        const meta = testCase.meta().servebench
        if (!meta) continue
        benchmarks.push(await this.collect(testCase, meta, relative(root, module.moduleId), dir))
      }
    }
    if (benchmarks.length === 0) return
    const summary: RunSummary = { date: new Date().toISOString(), reason, benchmarks }
    if (this.options.console) {
      for (const b of benchmarks) {
        this.log(consoleLine(b))
        for (const w of b.warnings) this.log(`servebench ⚠ ${b.file} › ${b.name}: ${w}`)
      }
    }
    await this.guard('the run summary', async () => {
      await mkdir(dir, { recursive: true })
      if (this.options.summary)
        await writeFile(join(dir, SUMMARY_JSON), `${JSON.stringify(summary, null, 2)}\n`)
      if (this.options.markdown) {
        const md = renderMarkdownSummary(summary)
        await writeFile(join(dir, SUMMARY_MARKDOWN), md)
        const step = process.env.GITHUB_STEP_SUMMARY
        if (step) await appendFile(step, `${md}\n`)
      }
    })
    this.log(`servebench: results written to ${relative(process.cwd(), dir) || '.'}`)
  }

  private async collect(
    testCase: TestCase,
    meta: ServeBenchMeta,
    file: string,
    dir: string,
  ): Promise<SummaryBenchmark & { warnings: string[] }> {
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
        timeline: `the timeline of '${name}'`,
        'dataset-stats': `the dataset statistics plot of '${name}'`,
      }
      await writeRunFiles(runResultOf(meta, result), {
        output: { resultDir: dir, saveDetailed: this.options.saveDetailed, appendResult: false },
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
          if (written === 'result') resultFile = basename(path)
        },
        // A failure while writing is reported, never thrown over the test results.
        onError: (failed, error) => this.reportWriteError(what[failed], error),
      })
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

const SEVERITY: SummaryVerdictValue[] = ['pass', 'inconclusive', 'invalid', 'fail']

// The result with its shape, which the worker stores beside it (`meta.kind`). Without one, a
// result carrying token timings is a generation result, else a pooling one.
function runResultOf(meta: ServeBenchMeta, result: ServeBenchResult): RunResult {
  const kind = meta.kind ?? (Array.isArray(result.ttfts) ? 'generation' : 'pooling')
  if (kind === 'pooling') return { kind, result: result as PoolingBenchResult }
  return { kind, result: result as BenchResult }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function benchmarkVerdict(state: string, meta: ServeBenchMeta): SummaryVerdictValue | null {
  if (meta.invalid) return 'invalid'
  if (state === 'skipped' || state === 'pending') return null
  let worst: SummaryVerdictValue = 'pass'
  for (const v of meta.verdicts)
    for (const value of [v.verdict, ...v.checks.map((c) => c.verdict)])
      if (SEVERITY.indexOf(value) > SEVERITY.indexOf(worst)) worst = value
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

/** `servebench ✓ chat.bench.ts › short chat  40 ok · 19.81 req/s · 1267.4 tok/s · TTFT 12.3/45.6 ms mean/p99 · TPOT 10.10 ms`. */
export function consoleLine(b: SummaryBenchmark): string {
  const icon =
    b.verdict === 'invalid'
      ? '!'
      : b.state === 'passed'
        ? b.verdict === 'inconclusive'
          ? '?'
          : '✓'
        : b.state === 'failed'
          ? '✗'
          : '↓'
  const tag = b.verdict === 'invalid' ? ' [invalid]' : b.verdict === 'inconclusive' ? ' [inconclusive]' : ''
  const head = `servebench ${icon} ${b.file} › ${b.name}${tag}`
  const m = b.metrics
  if (!m) return `${head}  (${b.state === 'failed' ? 'no result' : b.state})`
  const f = (v: number | null | undefined, d: number): string => (v == null ? '–' : v.toFixed(d))
  if (m.output_throughput === null) {
    // A pooling run: no tokens stream back, so its headline is the end-to-end latency.
    const pooling = [
      `${m.completed} ok${m.failed > 0 ? `, ${m.failed} failed` : ''}`,
      `${f(m.request_throughput, 2)} req/s`,
      `E2EL ${f(m.mean_e2el_ms, 1)}/${f(m.p99_e2el_ms, 1)} ms mean/p99`,
    ]
    const client = clientSegment(b.clientHealth)
    if (client) pooling.push(client)
    return `${head}  ${pooling.join(' · ')}`
  }
  const parts = [
    `${m.completed} ok${m.failed > 0 ? `, ${m.failed} failed` : ''}`,
    `${f(m.request_throughput, 2)} req/s`,
    `${f(m.output_throughput, 1)} tok/s`,
    `TTFT ${f(m.mean_ttft_ms, 1)}/${f(m.p99_ttft_ms, 1)} ms mean/p99`,
    `TPOT ${f(m.mean_tpot_ms, 2)} ms`,
  ]
  const client = clientSegment(b.clientHealth)
  if (client) parts.push(client)
  return `${head}  ${parts.join(' · ')}`
}

// `client ok (loop p99 1.2 ms)` or `client SATURATED`: the self-check in a few characters.
function clientSegment(health: Record<string, unknown> | undefined): string | undefined {
  if (!health) return undefined
  if (health.saturated === true) return 'client SATURATED'
  const p99 = health.event_loop_delay_p99_ms
  return typeof p99 === 'number' ? `client ok (loop p99 ${p99.toFixed(1)} ms)` : 'client ok'
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '')
}
