/**
 * The one writer of a run summary's files, for the Vitest reporter and `servebench
 * merge-summaries`: `servebench-summary.json`, the Markdown summary (also appended to
 * `$GITHUB_STEP_SUMMARY`), the pull-request comment, the summary CSV, JUnit XML, the history lines
 * and the HTML report. It renders each with the pure summary and HTML modules and puts it on disk
 * through write.ts; the caller says which it wants.
 */

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { CapacityResultFile } from '../../capacity/capacity-result.ts'
import { buildHtmlReport } from '../html/html-report.ts'
import type { ReportResult } from '../html/report-sections.ts'
import { summaryCsv } from '../summary/csv.ts'
import { formatHistoryLines, type HistoryEntry, historyEntries, parseHistory } from '../summary/history.ts'
import { renderJunitXml } from '../summary/junit.ts'
import { renderMarkdownSummary } from '../summary/markdown.ts'
import { renderPrComment } from '../summary/pr-comment.ts'
import type { RunSummary } from '../summary/run-summary.ts'
import { appendHistory, appendStepSummary, readChartLibrary, writeReportFile } from './write.ts'

export const SUMMARY_JSON = 'servebench-summary.json'
export const SUMMARY_MARKDOWN = 'servebench-summary.md'
export const PR_COMMENT_MARKDOWN = 'servebench-pr-comment.md'
export const SUMMARY_CSV = 'servebench-summary.csv'
export const HTML_REPORT = 'servebench-report.html'

/** Which summary files to write, and where. */
export interface SummaryFilesOptions {
  /** The folders that each get the summary files (a run's own folder and the result directory). */
  folders: readonly string[]
  /** `servebench-summary.json`. */
  json: boolean
  /** `servebench-summary.md`, also appended to {@link stepSummary} when that is set. */
  markdown: boolean
  /** `$GITHUB_STEP_SUMMARY`: appended, so each shard of a sharded run adds its own section. */
  stepSummary?: string
  /** The shard (`2/3`), named in the Markdown heading. */
  shard?: string
  /** `servebench-pr-comment.md`. @default false */
  prComment?: boolean
  /** `servebench-summary.csv`: one row per benchmark with a result. @default false */
  csv?: boolean
  /** JUnit XML at this path. @default false */
  junit?: string | false
  /** Append one line per benchmark to the history file at `path`, with the commit measured. @default false */
  history?: { path: string; commit: string | null } | false
  /** `servebench-report.html`, with the history's trends when the history is written. @default false */
  html?: boolean
  /** The benchmarks' results, for the CSV and the HTML report. @default [] */
  results?: readonly ReportResult[]
  /** The capacity searches, for the HTML report. @default [] */
  capacities?: ReadonlyArray<{ name: string; file: CapacityResultFile }>
  /**
   * When given, a group of files that cannot be written (`the run summary`, `the JUnit report`,
   * `the history`, `the HTML report`) is reported here and the next groups are still written;
   * without it the error is thrown.
   */
  onError?(what: string, error: unknown): void
}

/** Writes the summary files asked for, in order: summary, Markdown, PR comment, CSV, JUnit, history, HTML. */
export async function writeSummaryFiles(summary: RunSummary, options: SummaryFilesOptions): Promise<void> {
  const attempt = async (what: string, write: () => Promise<void>): Promise<void> => {
    try {
      await write()
    } catch (error) {
      if (!options.onError) throw error
      options.onError(what, error)
    }
  }
  const { folders, results = [] } = options
  await attempt('the run summary', async () => {
    const markdown = renderMarkdownSummary(summary, options.shard ? { shard: options.shard } : {})
    for (const folder of folders) {
      if (options.json)
        await writeReportFile(join(folder, SUMMARY_JSON), `${JSON.stringify(summary, null, 2)}\n`)
      if (options.markdown) await writeReportFile(join(folder, SUMMARY_MARKDOWN), markdown)
      if (options.prComment)
        await writeReportFile(join(folder, PR_COMMENT_MARKDOWN), renderPrComment(summary))
    }
    if (options.markdown && options.stepSummary) await appendStepSummary(options.stepSummary, `${markdown}\n`)
    if (options.csv) {
      const csv = summaryCsv(results)
      for (const folder of folders) await writeReportFile(join(folder, SUMMARY_CSV), csv)
    }
  })
  const { junit, history } = options
  if (junit !== undefined && junit !== false)
    await attempt('the JUnit report', () => writeReportFile(junit, renderJunitXml(summary)).then(() => {}))
  let entries: HistoryEntry[] | undefined
  if (history !== undefined && history !== false) {
    await attempt('the history', async () => {
      const lines = formatHistoryLines(historyEntries(summary, { commit: history.commit }))
      const path = await appendHistory(history.path, lines)
      if (options.html) entries = parseHistory(await readFile(path, 'utf8')).entries
    })
  }
  if (options.html) {
    await attempt('the HTML report', async () => {
      const html = buildHtmlReport(
        {
          results: [...results],
          capacities: [...(options.capacities ?? [])],
          ...(entries ? { history: entries } : {}),
        },
        { title: 'servebench run', generatedAt: summary.date, library: await readChartLibrary() },
      )
      for (const folder of folders) await writeReportFile(join(folder, HTML_REPORT), html)
    })
  }
}
