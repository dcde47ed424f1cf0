/**
 * The run history: an append-only JSON Lines file with one line per benchmark per run (commit,
 * date, fingerprint, key metrics, verdicts), which CI keeps as an artifact or on a branch, and the
 * per-metric trends the HTML report draws from it. Pure: `write.ts` appends the lines.
 */
import type { RunSummary, SummaryMetrics, VerdictValue } from './run-summary.ts'

/** One line of the history file (`servebench-history.jsonl`, docs/reports.md). */
export interface HistoryEntry {
  /** Format version. */
  v: 1
  /** The commit measured (`GITHUB_SHA`, else `git rev-parse HEAD`); null when unknown. */
  commit: string | null
  /** When the run ended, ISO 8601. */
  date: string
  /** `file › name`. */
  benchmark: string
  /** Configuration fingerprint: a trend only joins points of the same workload. */
  fingerprint: string
  state: 'passed' | 'failed' | 'skipped' | 'pending'
  verdict: VerdictValue | null
  metrics: SummaryMetrics | null
  /** Each checked metric with its verdict and numbers. */
  checks: Array<{
    matcher: string
    metric: string
    verdict: VerdictValue
    actual: number
    limit: number
    unit: string
  }>
}

/** One metric's points across runs, oldest first. */
export interface HistoryTrend {
  benchmark: string
  fingerprint: string
  /** A key of `SummaryMetrics`: `p99_ttft_ms`, `output_throughput`, … */
  metric: string
  points: Array<{ commit: string | null; date: string; value: number; verdict: VerdictValue | null }>
}

/** The metrics a trend is drawn for, in this order. */
export const TREND_METRICS = [
  'mean_ttft_ms',
  'p99_ttft_ms',
  'mean_tpot_ms',
  'mean_itl_ms',
  'request_throughput',
  'output_throughput',
] as const

/** The lines one run adds: its benchmarks that ran (skipped and pending ones are left out). */
export function historyEntries(summary: RunSummary, run: { commit: string | null }): HistoryEntry[] {
  return summary.benchmarks
    .filter((b) => b.state === 'passed' || b.state === 'failed')
    .map((b) => ({
      v: 1 as const,
      commit: run.commit,
      date: summary.date,
      benchmark: `${b.file} › ${b.name}`,
      fingerprint: b.fingerprint,
      state: b.state,
      verdict: b.verdict,
      metrics: b.metrics,
      checks: b.verdicts.flatMap((v) =>
        v.checks.map((c) => ({
          matcher: v.matcher,
          metric: c.metric,
          verdict: c.verdict,
          actual: c.actual,
          limit: c.limit,
          unit: c.unit,
        })),
      ),
    }))
}

/** The text appended to the history file: one JSON object per line, each ending in a newline. */
export function formatHistoryLines(entries: readonly HistoryEntry[]): string {
  return entries.map((e) => `${JSON.stringify(e)}\n`).join('')
}

/**
 * Reads a history file. A line that is not a history entry (a torn last line after a crash, an
 * edit) is skipped and named in `issues` (`line 7: …`), so one bad line never hides the others.
 */
export function parseHistory(text: string): { entries: HistoryEntry[]; issues: string[] } {
  const entries: HistoryEntry[] = []
  const issues: string[] = []
  const lines = text.split('\n')
  lines.forEach((line, i) => {
    if (line.trim() === '') return
    try {
      const value = JSON.parse(line) as Partial<HistoryEntry>
      if (value?.v !== 1 || typeof value.benchmark !== 'string' || typeof value.date !== 'string')
        issues.push(`line ${i + 1}: not a servebench history entry (needs v: 1, benchmark, date)`)
      else entries.push(value as HistoryEntry)
    } catch (error) {
      issues.push(`line ${i + 1}: ${(error as Error).message}`)
    }
  })
  return { entries, issues }
}

/**
 * The trend of each metric of each benchmark and fingerprint, in the file's order (append order,
 * so oldest first). A metric that a run did not measure (null) leaves that run out of its trend.
 */
export function historyTrends(entries: readonly HistoryEntry[]): HistoryTrend[] {
  const trends = new Map<string, HistoryTrend>()
  for (const e of entries) {
    if (!e.metrics) continue
    for (const metric of TREND_METRICS) {
      const value = (e.metrics as unknown as Record<string, unknown>)[metric]
      if (typeof value !== 'number' || !Number.isFinite(value)) continue
      const key = `${e.benchmark}\u0000${e.fingerprint}\u0000${metric}`
      let trend = trends.get(key)
      if (!trend) {
        trend = { benchmark: e.benchmark, fingerprint: e.fingerprint, metric, points: [] }
        trends.set(key, trend)
      }
      trend.points.push({ commit: e.commit, date: e.date, value, verdict: e.verdict })
    }
  }
  return [...trends.values()]
}
