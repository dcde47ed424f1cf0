/**
 * The pull-request comment: one Markdown row per checked metric (the check that made it, base,
 * head, change, interval, verdict), with the numbers on every line, failed lines included. Built from the run summary of
 * the Vitest reporter, or from two result files (`servebench compare --markdown`, see
 * `compare-markdown.ts`). Pure: text out; the reporter and the CLI write it.
 */
import type { RunSummary, VerdictCheck, VerdictValue } from './run-summary.ts'
import { VERDICT_ICONS } from './verdict-marks.ts'

/** One row of the delta table. */
export interface DeltaRow {
  /** The benchmark (file › name), or the compared files. */
  benchmark: string
  /** The matcher that checked it (`toMeetSLO`, `toMatchBaseline`, …); absent for two compared files. */
  check?: string
  /** `p99 TTFT`, `output_throughput`, … */
  metric: string
  unit: string
  /**
   * The baseline value (a baseline comparison, file A) or the SLO bound, with `bound` telling
   * which way it limits; null when there is none.
   */
  base: number | null
  /** `max`: the head must stay at or below `base`; `min`: at or above it. Absent for a baseline. */
  bound?: 'max' | 'min'
  head: number
  /** `head / base − 1`; null when `base` is null or zero. */
  change: number | null
  /**
   * The interval: of the relative change (fractions, as `change`) when `intervalOf` is `change`;
   * of `head` (in `unit`) when it is `head`.
   */
  interval?: [number, number]
  intervalOf?: 'change' | 'head'
  verdict: VerdictValue
  /** For an inconclusive row: about how many requests would decide it. */
  neededRequests?: number
}

/** The hidden line a CI job finds its earlier comment by (docs/ci.md, "A sticky pull-request comment"). */
export const PR_COMMENT_MARKER = '<!-- servebench:pr-comment -->'

/** One row per check of every verdict in the run summary (baseline checks and SLO bounds alike). */
export function summaryDeltaRows(summary: RunSummary): DeltaRow[] {
  const rows: DeltaRow[] = []
  for (const b of summary.benchmarks) {
    for (const v of b.verdicts) {
      const benchmark = `${b.file} › ${b.name}`
      for (const c of v.checks)
        rows.push({
          ...(v.matcher === 'toMatchBaseline' ? baselineRow(benchmark, c) : boundRow(benchmark, c)),
          check: v.matcher,
        })
    }
  }
  return rows
}

/**
 * The whole comment: the marker, a heading with the count of failed checks, and the delta table;
 * the benchmarks without a checked metric are listed under it with their state.
 */
export function renderPrComment(summary: RunSummary, options: { title?: string } = {}): string {
  const rows = summaryDeltaRows(summary)
  const unchecked = summary.benchmarks.filter((b) => b.verdicts.every((v) => v.checks.length === 0))
  const lines = [PR_COMMENT_MARKER, `## ${options.title ?? 'servebench'}: ${headline(rows)}`, '']
  if (rows.length > 0) lines.push(...renderDeltaTable(rows))
  else lines.push('No checked metric in this run.')
  if (unchecked.length > 0) {
    lines.push('', 'Benchmarks without a checked metric:', '')
    for (const b of unchecked) lines.push(`- ${escapeCell(`${b.file} › ${b.name}`)}: ${b.state}`)
  }
  return `${lines.join('\n')}\n`
}

/** `2 of 7 checks failed`, `all 7 checks passed`, `1 inconclusive of 3 checks`. */
export function headline(rows: readonly DeltaRow[]): string {
  const n = rows.length
  const count = (v: VerdictValue): number => rows.filter((r) => r.verdict === v).length
  const checks = `${n} check${n === 1 ? '' : 's'}`
  if (count('fail') > 0) return `${VERDICT_ICONS.fail} ${count('fail')} of ${checks} failed`
  if (count('invalid') > 0) return `${VERDICT_ICONS.invalid} ${count('invalid')} of ${checks} invalid`
  if (count('inconclusive') > 0)
    return `${VERDICT_ICONS.inconclusive} ${count('inconclusive')} of ${checks} inconclusive`
  return n === 0 ? 'no checks' : `${VERDICT_ICONS.pass} all ${checks} passed`
}

/**
 * The table lines: Benchmark | Check | Metric | Base | Head | Change | Interval | Verdict; without
 * the Benchmark column when `benchmarkColumn` is false (one comparison of two files), and without
 * the Check column when no row names its matcher. An SLO row and a baseline row may carry the same
 * metric (`p99 TTFT`): the Check column tells them apart.
 */
export function renderDeltaTable(
  rows: readonly DeltaRow[],
  options: { benchmarkColumn?: boolean } = {},
): string[] {
  const withBenchmark = options.benchmarkColumn ?? true
  const withCheck = rows.some((r) => r.check !== undefined)
  const head = [
    ...(withBenchmark ? ['Benchmark'] : []),
    ...(withCheck ? ['Check'] : []),
    ...['Metric', 'Base', 'Head', 'Change', 'Interval', 'Verdict'],
  ]
  const align = head.map((h) => (h === 'Base' || h === 'Head' || h === 'Change' ? '---:' : '---'))
  const lines = [`| ${head.join(' | ')} |`, `|${align.join('|')}|`]
  for (const r of rows) {
    const base =
      r.base === null
        ? '–'
        : `${r.bound === 'max' ? '≤ ' : r.bound === 'min' ? '≥ ' : ''}${num(r.base, r.unit)}`
    const interval =
      r.interval === undefined
        ? '–'
        : r.intervalOf === 'head'
          ? `${num(r.interval[0], r.unit)} … ${num(r.interval[1], r.unit)}`
          : `${percent(r.interval[0])} … ${percent(r.interval[1])}`
    const needed =
      r.verdict === 'inconclusive' && r.neededRequests !== undefined && Number.isFinite(r.neededRequests)
        ? ` (~${count(r.neededRequests)} requests)`
        : ''
    const cells = [
      ...(withBenchmark ? [escapeCell(r.benchmark)] : []),
      ...(withCheck ? [r.check ? `\`${r.check}\`` : '–'] : []),
      escapeCell(r.metric),
      base,
      num(r.head, r.unit),
      r.change === null ? '–' : percent(r.change),
      interval,
      `${VERDICT_ICONS[r.verdict]} ${r.verdict}${needed}`,
    ]
    lines.push(`| ${cells.join(' | ')} |`)
  }
  return lines
}

/**
 * A number with its unit, 3 significant digits at least (`412 ms`, `0.042`, `12.3 req/s`); a
 * `fraction` as a percentage (`0%`, `1.5%`), a `count` bare (`0`).
 */
export function num(value: number, unit = ''): string {
  if (!Number.isFinite(value)) return '–'
  if (unit === 'fraction') return `${Number((value * 100).toPrecision(3))}%`
  if (unit === 'count') return num(value)
  const abs = Math.abs(value)
  const text =
    abs >= 100 || Number.isInteger(value)
      ? value.toFixed(abs >= 100 && !Number.isInteger(value) ? 1 : 0)
      : value.toPrecision(3)
  return unit === '' ? text : unit === '%' ? `${text}%` : `${text} ${unit}`
}

/** A relative change as a signed percentage: `+12.3%`, `-4.0%`. */
export function percent(fraction: number): string {
  if (!Number.isFinite(fraction)) return '–'
  const p = fraction * 100
  return `${p >= 0 ? '+' : ''}${p.toFixed(1)}%`
}

/** A count as the console writes it: `614,355`. */
export function count(n: number): string {
  return Math.ceil(n).toLocaleString('en-US')
}

function baselineRow(benchmark: string, c: VerdictCheck): DeltaRow {
  const base = Number.isFinite(c.limit) ? c.limit : null
  return {
    benchmark,
    metric: c.metric,
    unit: c.unit,
    base,
    head: c.actual,
    change: base === null || base === 0 || !Number.isFinite(c.actual) ? null : c.actual / base - 1,
    ...(c.interval ? { interval: c.interval, intervalOf: 'change' as const } : {}),
    verdict: c.verdict,
    ...(c.neededRequests !== undefined ? { neededRequests: c.neededRequests } : {}),
  }
}

// Throughputs and goodput are lower limits; every other SLO bound (latencies, errors) an upper one.
function boundRow(benchmark: string, c: VerdictCheck): DeltaRow {
  const bound = /throughput|goodput/.test(c.metric) ? 'min' : 'max'
  return {
    benchmark,
    metric: c.metric,
    unit: c.unit,
    base: Number.isFinite(c.limit) ? c.limit : null,
    bound,
    head: c.actual,
    change: Number.isFinite(c.limit) && c.limit !== 0 ? c.actual / c.limit - 1 : null,
    ...(c.interval ? { interval: c.interval, intervalOf: 'head' as const } : {}),
    verdict: c.verdict,
    ...(c.neededRequests !== undefined ? { neededRequests: c.neededRequests } : {}),
  }
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}
