/**
 * The files of a Vitest run, for the reporter: a folder for the run, each benchmark's run files
 * (result JSON, timeline page, dataset-statistics figure, request CSV), the run summary built from
 * what the reporter collected, the summary files, and the oldest run folders pruned. A file that
 * cannot be written is reported, never thrown over the test results.
 */
import { basename, join, relative } from 'node:path'
import type { CapacityResultFile } from '../../capacity/capacity-result.ts'
import type { ReportResult } from '../html/report-sections.ts'
import { toPythonJson } from '../result/py-json.ts'
import { requestsCsv } from '../summary/csv.ts'
import type { RunEndReason, RunSummary } from '../summary/run-summary.ts'
import { type CollectedBenchmark, runResultOf, summariseBenchmark } from '../summary/summarise.ts'
import { type RunFile, writeRunFiles } from './run-files.ts'
import { createRunFolder, pruneRunFolders } from './run-folder.ts'
import { writeSummaryFiles } from './summary-files.ts'
import { requestsCsvPath, resultPath, writeReportFile } from './write.ts'

/** What a Vitest run writes: the reporter's options, resolved, with the run's own facts. */
export interface SuiteFilesOptions {
  /** The result directory, absolute. */
  resultDir: string
  /** When the run started: its folder is named after it. */
  startedAt: Date
  reason: RunEndReason
  json: boolean
  saveDetailed: boolean
  summary: boolean
  markdown: boolean
  timeline: boolean | { itlThresholdsMs?: [number, number] }
  datasetStats: boolean
  prComment: boolean
  csv: boolean
  /** The JUnit XML file, absolute. */
  junit: string | false
  /** The history file, absolute, and the commit measured. */
  history: { path: string; commit: string | null } | false
  html: boolean
  keepRuns: number
  /** The shard (`2/3`), named in the Markdown heading. */
  shard?: string
  /** `$GITHUB_STEP_SUMMARY`. */
  stepSummary?: string
  /** Told of each file, or group of files, that could not be written. */
  onError(what: string, error: unknown): void
}

/** Writes a Vitest run's files; returns its summary and the folder its files went to. */
export async function writeSuiteFiles(
  benchmarks: readonly CollectedBenchmark[],
  options: SuiteFilesOptions,
): Promise<{ summary: RunSummary; folder: string }> {
  const dir = options.resultDir
  const guard = async (what: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn()
    } catch (error) {
      options.onError(what, error)
    }
  }
  // One folder per run keeps its files together; the summaries and reports are also copied to `dir`.
  let run = ''
  await guard('the run folder', async () => {
    run = await createRunFolder(dir, options.startedAt)
  })
  const entries = []
  for (const b of benchmarks) entries.push(summariseBenchmark(b, await writeBenchmarkFiles(b, run, options)))
  const summary: RunSummary = { date: new Date().toISOString(), reason: options.reason, benchmarks: entries }
  const results: ReportResult[] = benchmarks.flatMap((b) =>
    b.result
      ? [
          {
            name: `${b.file} › ${b.name}`,
            result: b.result,
            verdicts: b.verdicts,
            ...(b.baseline ? { baseline: b.baseline } : {}),
          },
        ]
      : [],
  )
  await writeSummaryFiles(summary, {
    folders: run === '' ? [dir] : [join(dir, run), dir],
    json: options.summary,
    markdown: options.markdown,
    ...(options.stepSummary ? { stepSummary: options.stepSummary } : {}),
    ...(options.shard ? { shard: options.shard } : {}),
    prComment: options.prComment,
    csv: options.csv,
    junit: options.junit,
    history: options.history,
    html: options.html,
    results,
    capacities: benchmarks.flatMap((b) =>
      b.capacity ? [{ name: `${b.file} › ${b.name}`, file: b.capacity }] : [],
    ),
    onError: options.onError,
  })
  if (run !== '') {
    await guard('old run folders', async () => {
      await pruneRunFolders(dir, options.keepRuns, run)
    })
  }
  return { summary, folder: join(dir, run) }
}

// A benchmark's run files in the run folder; returns its result file relative to the result directory.
async function writeBenchmarkFiles(
  b: CollectedBenchmark,
  run: string,
  options: SuiteFilesOptions,
): Promise<string | null> {
  const { name, file } = b
  const label = slug(`${basename(file).replace(/\.(bench|test|spec)\.[cm]?[jt]sx?$/, '')}-${name}`)
  if (b.capacity)
    return writeCapacityFile(b.capacity, join(options.resultDir, run, `${label}.capacity.json`), options)
  const outcome = runResultOf(b)
  if (!outcome) return null
  let resultFile: string | null = null
  const what: Record<RunFile, string> = {
    result: `the result of '${name}'`,
    pytorch: `the PyTorch records of '${name}'`,
    segment: `the segment file of '${name}'`,
    timeline: `the timeline of '${name}'`,
    'dataset-stats': `the dataset statistics plot of '${name}'`,
  }
  const output = {
    resultDir: join(options.resultDir, run),
    saveDetailed: options.saveDetailed,
    appendResult: false,
  }
  const { timeline } = options
  await writeRunFiles(outcome, {
    output,
    naming: { label },
    result: options.json,
    timeline:
      timeline === false
        ? false
        : {
            title: `${file} › ${name}`,
            ...(typeof timeline === 'object' && timeline.itlThresholdsMs
              ? { itlThresholdsMs: timeline.itlThresholdsMs }
              : {}),
          },
    datasetStats: options.datasetStats,
    onWritten: (written, path) => {
      // Relative to the result directory: `run-…/<name>.json`.
      if (written === 'result') resultFile = relative(options.resultDir, path)
    },
    onError: (failed, error) => options.onError(what[failed], error),
  })
  if (options.csv) {
    try {
      const csv = requestsCsv(outcome.result)
      if (csv !== undefined)
        await writeReportFile(requestsCsvPath(resultPath(outcome.result, output, { label })), csv)
    } catch (error) {
      options.onError(`the request CSV of '${name}'`, error)
    }
  }
  return resultFile
}

// A capacity search's file, as `servebench capacity --save-result` writes it; relative to the result directory.
async function writeCapacityFile(
  capacity: CapacityResultFile,
  path: string,
  options: SuiteFilesOptions,
): Promise<string | null> {
  try {
    await writeReportFile(path, toPythonJson(capacity))
    return relative(options.resultDir, path)
  } catch (error) {
    options.onError(`the capacity result of '${basename(path)}'`, error)
    return null
  }
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '')
}
