import { basename, join } from 'node:path'
import type { CapacityResultFile } from '../../capacity/capacity-result.ts'
import { ConfigError, type ConfigIssue, EXIT_CODES } from '../../errors.ts'
import { parseResultText } from '../../report/compare/compare.ts'
import { readChartLibrary, writeReportFile } from '../../report/files/write.ts'
import { capacityFileIssues, isCapacityFile } from '../../report/html/capacity-charts.ts'
import { buildHtmlReport } from '../../report/html/html-report.ts'
import type { ReportResult } from '../../report/html/report-sections.ts'
import { sweepFileResults, sweepRunsResults } from '../../report/html/sweep-charts.ts'
import { parsePythonJson } from '../../report/result/py-json.ts'
import { requestsCsv, summaryCsv } from '../../report/summary/csv.ts'
import { type HistoryEntry, parseHistory } from '../../report/summary/history.ts'
import type { RunSummary } from '../../report/summary/run-summary.ts'
import { asksForHelp, type CommandArgs, scanCommandArgs, stringFlag } from '../parse-args.ts'
import { readInputText } from '../read-input.ts'

const USAGE = `Usage: servebench report <result.json>… [-o report.html] [flags]

Writes one self-contained HTML report (no network: the chart library is inlined) of saved results:
per result, the TTFT / ITL / E2EL distributions (CDF and histogram), throughput and requests in
flight over time with the steady-state window, the server's scraped /metrics series, the
configuration and the client self-check. Two results are also compared side by side. A combined
sweep file (--sweep-* --save-result), or three results or more that differ in max concurrency or
request rate, is drawn as a sweep (latency and throughput by load, the knee marked), its points
in the order of the value swept, with the Pareto frontier of tokens/s per user against tokens/s
per GPU; so is a summary.json of \`servebench sweep\`. A capacity result (\`servebench capacity\`)
is drawn as its search: each SLO against the offered load with its bound, every probe's verdict,
the answer and its interval. Distributions and time series need results saved with
--save-detailed; a result without them is drawn from its percentiles (p50, p99, ...).

  -o, --output FILE   the HTML file (default servebench-report.html)
  --title TEXT        the page title (default "servebench report")
  --summary FILE      a servebench-summary.json: draws each result's SLO bounds and verdicts
  --history FILE      a history file (JSON Lines): one trend chart per metric
  --csv DIR           also write DIR/summary.csv and DIR/<result>.requests.csv
`

interface ReportArgs {
  files: string[]
  output: string
  title?: string
  summary?: string
  history?: string
  csv?: string
}

/** `servebench report RESULTS… -o report.html`. No server is contacted. */
export async function runReportCommand(argv: readonly string[]): Promise<number> {
  if (asksForHelp(argv)) {
    process.stdout.write(USAGE)
    return EXIT_CODES.ok
  }
  const args = parseReportArgs(argv)
  // A combined sweep file or a sweep's summary.json stands for its points; a capacity file is
  // drawn on its own; `sources[i]` is the file results[i] came from.
  const capacities: Array<{ name: string; file: CapacityResultFile }> = []
  const read = await Promise.all(
    args.files.map(async (path) => {
      const result = await readResultFile(path)
      if (Array.isArray(result)) {
        return sweepRunsResults(sweepName(path), result).map((r) => ({ r, path }))
      }
      if (isCapacityFile(result)) {
        const issues = capacityFileIssues(result)
        if (issues.length > 0) throw new ConfigError(issues.map((message) => ({ path, message })))
        capacities.push({ name: resultName(path), file: result as unknown as CapacityResultFile })
        return []
      }
      const points = sweepFileResults(resultName(path), result)
      return (points ?? [{ name: resultName(path), result }]).map((r) => ({ r, path }))
    }),
  )
  const results: ReportResult[] = read.flat().map((x) => x.r)
  const sources = read.flat().map((x) => x.path)
  if (args.summary)
    attachVerdicts(results, sources, (await readJson(args.summary, '--summary')) as RunSummary)
  let history: HistoryEntry[] | undefined
  if (args.history) {
    const parsed = parseHistory(await readInputText(args.history, '--history'))
    for (const issue of parsed.issues) console.error(`servebench: ${args.history}: skipped ${issue}`)
    history = parsed.entries
  }
  const html = buildHtmlReport(
    { results, capacities, ...(history ? { history } : {}) },
    {
      title: args.title ?? 'servebench report',
      generatedAt: new Date().toISOString(),
      library: await readChartLibrary(),
    },
  )
  await writeReportFile(args.output, html)
  console.log(`servebench: report written to ${args.output}`)
  if (args.csv) {
    await writeReportFile(join(args.csv, 'summary.csv'), summaryCsv(results))
    for (const [i, r] of results.entries()) {
      const stem = basename(sources[i]!).replace(/\.jsonl?$/, '')
      const csv = requestsCsv(r.result)
      const point = r.sweep ? ` (${r.name})` : ''
      if (csv !== undefined) await writeReportFile(join(args.csv, `${stem}.requests.csv`), csv)
      else
        console.error(
          `servebench: ${sources[i]}${point} has no per-request data (--save-detailed): no requests CSV`,
        )
    }
    console.log(`servebench: CSV written to ${args.csv}`)
  }
  return EXIT_CODES.ok
}

const REPORT_ARGS: CommandArgs = {
  command: 'servebench report',
  flags: [
    { name: '--output', aliases: ['-o'], type: 'string', help: 'the HTML file' },
    { name: '--title', type: 'string', help: 'the page title' },
    { name: '--summary', type: 'string', help: 'a servebench-summary.json' },
    { name: '--history', type: 'string', help: 'a history file (JSON Lines)' },
    { name: '--csv', type: 'string', help: 'a folder for CSV files' },
  ],
  positionals: { what: 'result file', min: 1 },
}

function parseReportArgs(argv: readonly string[]): ReportArgs {
  const issues: ConfigIssue[] = []
  const { flags, positionals: files } = scanCommandArgs(argv, REPORT_ARGS, issues)
  const values: Omit<ReportArgs, 'files' | 'output'> & { output?: string } = {}
  for (const key of ['output', 'title', 'summary', 'history', 'csv'] as const) {
    const value = stringFlag(flags, `--${key}`)
    if (value === '') issues.push({ path: `--${key}`, message: 'needs a value' })
    else if (value !== undefined) values[key] = value
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return { files, ...values, output: values.output ?? 'servebench-report.html' }
}

// `q-infqps-concurrency16-sim-model-20261201-181205.json` → `q-infqps-concurrency16-sim-model`.
function resultName(path: string): string {
  return basename(path)
    .replace(/\.jsonl?$/, '')
    .replace(/-\d{8}-\d{6}$/, '')
}

// A summary's benchmark names its result file; its verdicts go to the result read from that file.
function attachVerdicts(results: ReportResult[], sources: readonly string[], summary: RunSummary): void {
  for (const b of summary.benchmarks ?? []) {
    const i = sources.findIndex(
      (f, k) => b.resultFile !== null && basename(f) === b.resultFile && !results[k]!.sweep,
    )
    if (i >= 0) {
      results[i]!.verdicts = b.verdicts
      results[i]!.name = `${b.file} › ${b.name}`
    }
  }
}

// `exp/summary.json` → `exp`: a sweep's summary is named after its experiment folder.
function sweepName(path: string): string {
  return basename(join(path, '..'))
}

// A result object, or the list of runs of a sweep's summary.json.
async function readResultFile(
  path: string,
): Promise<Record<string, unknown> | Array<Record<string, unknown>>> {
  try {
    const text = await readInputText(path)
    const list = parseList(text)
    if (list) return list
    return parseResultText(text)
  } catch (error) {
    if (error instanceof ConfigError) throw error
    throw new ConfigError([{ path, message: (error as Error).message }])
  }
}

async function readJson(path: string, flag: string): Promise<unknown> {
  try {
    return JSON.parse(await readInputText(path, flag))
  } catch (error) {
    if (error instanceof ConfigError) throw error
    throw new ConfigError([{ path: flag, message: `${path} is not JSON: ${(error as Error).message}` }])
  }
}

function parseList(text: string): Array<Record<string, unknown>> | undefined {
  try {
    const value = parsePythonJson(text)
    return Array.isArray(value) &&
      value.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v))
      ? (value as Array<Record<string, unknown>>)
      : undefined
  } catch {
    return undefined
  }
}
