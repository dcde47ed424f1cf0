import type { OutputConfig } from '../../config/bench-config.ts'
import { ConfigError, EXIT_CODES } from '../../errors.ts'
import { hasGoodput } from '../../metrics/goodput.ts'
import { formatResultTable } from '../../report/console/console.ts'
import { checkOutputDestination, writeResult } from '../../report/files/write.ts'
import { mergeSegments, type ReadSegment } from '../../report/result/merge-segments.ts'
import { parsePythonJson } from '../../report/result/py-json.ts'
import { asksForHelp, type CommandArgs, parseCommandArgs, stringFlag } from '../parse-args.ts'
import { readInputText } from '../read-input.ts'

const USAGE = `Usage: servebench merge SEGMENT.json... [--save-result] [--save-detailed] [--result-dir DIR] [--result-filename NAME] [--label LABEL]

Joins the segment files of one benchmark (servebench serve --segment i/n, one per process or
machine) into one result, as if one process had sent the whole schedule: every metric is
recomputed from all requests together. The segments must share one configuration fingerprint and
include every index once. Prints the result table and the start skew between the segments.
`

const MERGE_ARGS: CommandArgs = {
  command: 'servebench merge',
  flags: [
    { name: '--save-result', type: 'boolean', help: 'write the merged result' },
    { name: '--save-detailed', type: 'boolean', help: 'with the per-request arrays' },
    { name: '--result-dir', type: 'string', help: 'the folder of the merged result' },
    { name: '--result-filename', type: 'string', help: 'its file name' },
    { name: '--label', type: 'string', help: 'the label written in the result' },
  ],
  positionals: { what: 'segment file', min: 1 },
}

/** `servebench merge SEGMENTS… [--save-result]`: no server is contacted. */
export async function runMergeCommand(argv: readonly string[]): Promise<number> {
  if (asksForHelp(argv)) {
    process.stdout.write(USAGE)
    return EXIT_CODES.ok
  }
  const { flags, positionals: paths } = parseCommandArgs(argv, MERGE_ARGS)
  const resultDir = stringFlag(flags, '--result-dir')
  const resultFilename = stringFlag(flags, '--result-filename')
  const output: OutputConfig = {
    saveResult: flags.has('--save-result'),
    saveDetailed: flags.has('--save-detailed'),
    appendResult: false,
    ...(resultDir !== undefined ? { resultDir } : {}),
    ...(resultFilename !== undefined ? { resultFilename } : {}),
  }
  if (output.saveResult) await checkOutputDestination(output)
  const merged = mergeSegments(await Promise.all(paths.map(readSegment)))
  const { result } = merged
  const label = stringFlag(flags, '--label')
  if (label !== undefined) result.label = label
  process.stdout.write(
    formatResultTable(result, {
      percentileMetrics: merged.options.percentileMetrics,
      metricPercentiles: merged.options.metricPercentiles,
      hasTokenizer: merged.options.hasTokenizer,
      goodputSet: hasGoodput(merged.options.goodput),
    }),
  )
  const count = (result.segments as { count: number }).count
  console.log(
    `servebench: merged ${count} segments, ${merged.records.length} requests; start skew ${merged.startSkewMs.toFixed(1)} ms (latest segment start minus earliest, by each machine's wall clock)`,
  )
  if (merged.saturated.length > 0) {
    console.error(
      `servebench: the client of segment ${merged.saturated.join(', ')} was saturated: those latencies measure the client, not the server`,
    )
  }
  if (output.saveResult) {
    const maxConcurrency = result.max_concurrency
    const path = await writeResult(result, output, {
      ...(label !== undefined ? { label } : {}),
      ...(typeof maxConcurrency === 'number' ? { maxConcurrency } : {}),
    })
    console.log(`servebench: result written to ${path}`)
  }
  const failed = merged.records.filter((r) => !r.success).length
  return merged.records.length > 0 && failed === merged.records.length
    ? EXIT_CODES.verdictFailed
    : EXIT_CODES.ok
}

async function readSegment(path: string): Promise<ReadSegment> {
  const text = await readInputText(path)
  try {
    return { path, value: parsePythonJson(text) }
  } catch (error) {
    throw new ConfigError([{ path, message: `is not JSON: ${(error as Error).message}` }])
  }
}
