/**
 * Merges the run summaries of a sharded run (`vitest bench --shard i/n`, one
 * `servebench-summary.json` per shard) into one, as if the run had not been split. Pure: the CLI
 * reads and writes. Vitest: `--merge-reports` does the same for blob reports under `vitest run`.
 */
import { BENCHMARK_STATES, RUN_END_REASONS, type RunSummary, type SummaryBenchmark } from './run-summary.ts'

/** One shard's summary and where it came from (for messages and result-file paths). */
export interface ShardSummary {
  path: string
  summary: RunSummary
}

const STATES: readonly string[] = BENCHMARK_STATES
const REASONS: readonly string[] = RUN_END_REASONS

/**
 * Checks that a parsed file is a run summary; returns every problem, each naming the field
 * (`benchmarks[2].state must be one of passed, failed, skipped, pending (got "ok")`).
 */
export function summaryProblems(value: unknown): string[] {
  if (!isRecord(value)) return ['must be a JSON object']
  const problems: string[] = []
  if (typeof value.date !== 'string') problems.push('date must be a string')
  if (!REASONS.includes(value.reason as string))
    problems.push(`reason must be one of ${REASONS.join(', ')} (got ${JSON.stringify(value.reason)})`)
  if (!Array.isArray(value.benchmarks)) return [...problems, 'benchmarks must be an array']
  value.benchmarks.forEach((b: unknown, i: number) => {
    const at = `benchmarks[${i}]`
    if (!isRecord(b)) {
      problems.push(`${at} must be an object`)
      return
    }
    for (const key of ['file', 'name', 'fingerprint'])
      if (typeof b[key] !== 'string') problems.push(`${at}.${key} must be a string`)
    if (!STATES.includes(b.state as string))
      problems.push(`${at}.state must be one of ${STATES.join(', ')} (got ${JSON.stringify(b.state)})`)
    for (const key of ['verdicts', 'errors'])
      if (!Array.isArray(b[key])) problems.push(`${at}.${key} must be an array`)
  })
  return problems
}

/**
 * One summary of every shard's benchmarks, ordered by suite file (a file runs whole in one shard,
 * so its benchmarks keep their order). The reason is the worst of the shards' (`interrupted` >
 * `failed` > `passed`), the date the latest. `rebase` maps a shard's `resultFile` to its path from
 * the merged summary. Throws when two shards hold the same benchmark.
 */
export function mergeSummaries(
  shards: readonly ShardSummary[],
  rebase: (shard: ShardSummary, resultFile: string) => string = (_s, f) => f,
): RunSummary {
  const seen = new Map<string, string>()
  const benchmarks: SummaryBenchmark[] = []
  for (const shard of shards) {
    for (const b of shard.summary.benchmarks) {
      const key = `${b.file} › ${b.name}`
      const other = seen.get(key)
      if (other !== undefined) {
        throw new Error(
          `${other} and ${shard.path} both hold "${key}": merge the shards of one run, each once`,
        )
      }
      seen.set(key, shard.path)
      benchmarks.push(b.resultFile === null ? b : { ...b, resultFile: rebase(shard, b.resultFile) })
    }
  }
  const sorted = benchmarks
    .map((b, i) => ({ b, i }))
    .sort((x, y) => (x.b.file < y.b.file ? -1 : x.b.file > y.b.file ? 1 : x.i - y.i))
    .map(({ b }) => b)
  const reasons = shards.map((s) => s.summary.reason)
  const reason = reasons.includes('interrupted')
    ? 'interrupted'
    : reasons.includes('failed')
      ? 'failed'
      : 'passed'
  const date =
    shards
      .map((s) => s.summary.date)
      .sort()
      .at(-1) ?? new Date(0).toISOString()
  return { date, reason, benchmarks: sorted }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
