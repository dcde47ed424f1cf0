import type { OutputConfig } from '../../config/bench-config.ts'
import { ConfigError, EXIT_CODES } from '../../errors.ts'
import { hasGoodput } from '../../metrics/goodput.ts'
import { formatResultTable } from '../../report/console/console.ts'
import { checkOutputDestination, writeResult } from '../../report/files/write.ts'
import { mergeSegments, type ReadSegment } from '../../report/result/merge-segments.ts'
import { readInputText } from '../read-input.ts'

const USAGE = `Usage: servebench merge SEGMENT.json... [--save-result] [--save-detailed] [--result-dir DIR] [--result-filename NAME] [--label LABEL]

Joins the segment files of one benchmark (servebench serve --segment i/n, one per process or
machine) into one result, as if one process had sent the whole schedule: every metric is
recomputed from all requests together. The segments must share one configuration fingerprint and
include every index once. Prints the result table and the start skew between the segments.
`

const VALUE_FLAGS = ['--result-dir', '--result-filename', '--label'] as const
const SWITCHES = ['--save-result', '--save-detailed'] as const

/** `servebench merge SEGMENTS… [--save-result]`: no server is contacted. */
export async function runMergeCommand(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE)
    return EXIT_CODES.ok
  }
  const paths: string[] = []
  const values = new Map<string, string>()
  const switches = new Set<string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if ((SWITCHES as readonly string[]).includes(arg)) switches.add(arg)
    else if ((VALUE_FLAGS as readonly string[]).includes(arg)) {
      const value = argv[++i]
      if (value === undefined) throw new ConfigError([{ path: arg, message: 'needs a value' }])
      values.set(arg, value)
    } else if (arg.startsWith('--')) {
      throw new ConfigError([
        { path: arg, message: `is not a merge flag; valid: ${[...SWITCHES, ...VALUE_FLAGS].join(', ')}` },
      ])
    } else paths.push(arg)
  }
  const output: OutputConfig = {
    saveResult: switches.has('--save-result'),
    saveDetailed: switches.has('--save-detailed'),
    appendResult: false,
    ...(values.has('--result-dir') ? { resultDir: values.get('--result-dir')! } : {}),
    ...(values.has('--result-filename') ? { resultFilename: values.get('--result-filename')! } : {}),
  }
  if (output.saveResult) await checkOutputDestination(output)
  const merged = mergeSegments(await Promise.all(paths.map(readSegment)))
  const { result } = merged
  const label = values.get('--label')
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
    return { path, value: JSON.parse(text) as unknown }
  } catch (error) {
    throw new ConfigError([{ path, message: `is not JSON: ${(error as Error).message}` }])
  }
}
