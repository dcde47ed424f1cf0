import { basename, join } from 'node:path'
import { ConfigError, EXIT_CODES } from '../../errors.ts'
import { parseResultText } from '../../report/compare/compare.ts'
import { readChartLibrary, writeReportFile } from '../../report/files/write.ts'
import { buildHtmlReport } from '../../report/html/html-report.ts'
import type { ReportResult } from '../../report/html/report-sections.ts'
import { requestsCsv, summaryCsv } from '../../report/summary/csv.ts'
import { type HistoryEntry, parseHistory } from '../../report/summary/history.ts'
import type { RunSummary } from '../../report/summary/markdown.ts'
import { readInputText } from '../read-input.ts'

const USAGE = `Usage: servebench report <result.json>… [-o report.html] [flags]

Writes one self-contained HTML report (no network: the chart library is inlined) of saved results:
per result, the TTFT / ITL / E2EL distributions (CDF and histogram), throughput and requests in
flight over time with the steady-state window, the server's scraped /metrics series, the
configuration and the client self-check. Two results are also compared side by side; three or
more are drawn as a sweep (latency against throughput, the knee marked). Distributions need
results saved with --save-detailed.

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
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE)
    return EXIT_CODES.ok
  }
  const args = parseReportArgs(argv)
  const results: ReportResult[] = await Promise.all(
    args.files.map(async (path) => ({
      name: resultName(path),
      result: await readResultFile(path),
    })),
  )
  if (args.summary)
    attachVerdicts(results, args.files, (await readJson(args.summary, '--summary')) as RunSummary)
  let history: HistoryEntry[] | undefined
  if (args.history) {
    const parsed = parseHistory(await readInputText(args.history, '--history'))
    for (const issue of parsed.issues) console.error(`servebench: ${args.history}: skipped ${issue}`)
    history = parsed.entries
  }
  const html = buildHtmlReport(
    { results, ...(history ? { history } : {}) },
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
      const stem = basename(args.files[i]!).replace(/\.jsonl?$/, '')
      const csv = requestsCsv(r.result)
      if (csv !== undefined) await writeReportFile(join(args.csv, `${stem}.requests.csv`), csv)
      else
        console.error(
          `servebench: ${args.files[i]} has no per-request data (--save-detailed): no requests CSV`,
        )
    }
    console.log(`servebench: CSV written to ${args.csv}`)
  }
  return EXIT_CODES.ok
}

function parseReportArgs(argv: readonly string[]): ReportArgs {
  const files: string[] = []
  const values: Record<string, string> = {}
  const issues: Array<{ path: string; message: string }> = []
  const names: Record<string, string> = {
    '-o': 'output',
    '--output': 'output',
    '--title': 'title',
    '--summary': 'summary',
    '--history': 'history',
    '--csv': 'csv',
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1
    const flag = eq > 0 ? arg.slice(0, eq) : arg
    const key = names[flag]
    if (key !== undefined) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i]
      if (value === undefined || value === '') issues.push({ path: flag, message: 'needs a value' })
      else values[key] = value
    } else if (arg.startsWith('-')) {
      issues.push({
        path: arg,
        message: `is not a flag of servebench report; valid: ${Object.keys(names).join(', ')}`,
      })
    } else files.push(arg)
  }
  if (files.length === 0)
    issues.push({ path: 'report', message: 'needs at least one result file; see servebench report --help' })
  if (issues.length > 0) throw new ConfigError(issues)
  return { files, output: values.output ?? 'servebench-report.html', ...values }
}

// `q-infqps-concurrency16-sim-model-20261201-181205.json` → `q-infqps-concurrency16-sim-model`.
function resultName(path: string): string {
  return basename(path)
    .replace(/\.jsonl?$/, '')
    .replace(/-\d{8}-\d{6}$/, '')
}

// A summary's benchmark names its result file; its verdicts go to the result read from that file.
function attachVerdicts(results: ReportResult[], files: readonly string[], summary: RunSummary): void {
  for (const b of summary.benchmarks ?? []) {
    const i = files.findIndex((f) => b.resultFile !== null && basename(f) === b.resultFile)
    if (i >= 0) {
      results[i]!.verdicts = b.verdicts
      results[i]!.name = `${b.file} › ${b.name}`
    }
  }
}

async function readResultFile(path: string): Promise<Record<string, unknown>> {
  try {
    return parseResultText(await readInputText(path))
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
