import { stat } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { ConfigError, type ConfigIssue, EXIT_CODES } from '../../errors.ts'
import { SUMMARY_JSON, writeSummaryFiles } from '../../report/files/summary-files.ts'
import { mergeSummaries, type ShardSummary, summaryProblems } from '../../report/summary/merge-summaries.ts'
import type { RunSummary } from '../../report/summary/run-summary.ts'
import { consoleLine, failedCheckLines } from '../../report/summary/summary-console.ts'
import { asksForHelp, type CommandArgs, scanCommandArgs, stringFlag } from '../parse-args.ts'
import { readInputText } from '../read-input.ts'

const USAGE = `Usage: servebench merge-summaries <dir|summary.json>... [--output-dir DIR] [--junit FILE]

Merges the servebench-summary.json of each shard of a sharded run (vitest bench --shard i/n) into
one summary, as if the run had not been split: servebench-summary.json and servebench-summary.md
in --output-dir (default servebench-merged), the Markdown also appended to $GITHUB_STEP_SUMMARY
when set, and JUnit XML with --junit. A directory argument is read as <dir>/servebench-summary.json.

Exit codes: 0 every benchmark passed, 1 one failed, 2 a bad file or flag.
`

/** `servebench merge-summaries DIR… [--output-dir DIR] [--junit FILE]`. */
export async function runMergeSummariesCommand(args: readonly string[]): Promise<number> {
  if (asksForHelp(args)) {
    process.stdout.write(USAGE)
    return EXIT_CODES.ok
  }
  const { inputs, outputDir, junit } = parseArgs(args)
  const shards = await Promise.all(inputs.map(readSummary))
  const out = resolve(outputDir)
  let merged: RunSummary
  try {
    // Result files stay where the shards wrote them; the merged summary points at them from `out`.
    merged = mergeSummaries(shards, (shard, file) => relative(out, resolve(dirname(shard.path), file)))
  } catch (error) {
    throw new ConfigError([{ path: 'merge-summaries', message: (error as Error).message }])
  }
  const step = process.env.GITHUB_STEP_SUMMARY
  await writeSummaryFiles(merged, {
    folders: [out],
    json: true,
    markdown: true,
    ...(step ? { stepSummary: step } : {}),
    junit: junit === undefined ? false : resolve(junit),
  })
  for (const b of merged.benchmarks) {
    console.log(consoleLine(b))
    for (const line of failedCheckLines(b)) console.log(`servebench   ${line}`)
  }
  console.log(
    `servebench: merged ${shards.length} summar${shards.length === 1 ? 'y' : 'ies'} (${merged.benchmarks.length} benchmarks) into ${relative(process.cwd(), out) || '.'}`,
  )
  return merged.benchmarks.some((b) => b.state === 'failed') ? EXIT_CODES.verdictFailed : EXIT_CODES.ok
}

const MERGE_SUMMARIES_ARGS: CommandArgs = {
  command: 'servebench merge-summaries',
  flags: [
    { name: '--output-dir', type: 'string', help: 'the folder of the merged summary' },
    { name: '--junit', type: 'string', help: 'also write JUnit XML to this file' },
  ],
  positionals: { what: 'shard folder or servebench-summary.json', min: 1 },
}

function parseArgs(args: readonly string[]): { inputs: string[]; outputDir: string; junit?: string } {
  const issues: ConfigIssue[] = []
  const { flags, positionals } = scanCommandArgs(args, MERGE_SUMMARIES_ARGS, issues)
  const outputDir = stringFlag(flags, '--output-dir') ?? 'servebench-merged'
  const junit = stringFlag(flags, '--junit')
  for (const [flag, value] of [
    ['--output-dir', outputDir],
    ['--junit', junit],
  ] as const)
    if (value === '') issues.push({ path: flag, message: 'needs a path' })
  if (issues.length > 0) throw new ConfigError(issues)
  return { inputs: positionals, outputDir, ...(junit !== undefined ? { junit } : {}) }
}

async function readSummary(input: string): Promise<ShardSummary> {
  // A folder stands for the summary in it; a path that cannot be read is reported by the read.
  const isFolder = await stat(input).then(
    (s) => s.isDirectory(),
    () => false,
  )
  const path = isFolder ? join(input, SUMMARY_JSON) : input
  const text = await readInputText(path)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new ConfigError([{ path, message: `is not JSON (${(error as Error).message})` }])
  }
  const problems = summaryProblems(value)
  if (problems.length > 0) {
    throw new ConfigError(
      problems.slice(0, 5).map((p) => ({ path, message: `is not a servebench-summary.json: ${p}` })),
    )
  }
  return { path, summary: value as RunSummary }
}
