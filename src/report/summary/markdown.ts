/**
 * The Markdown run summary (a table of key metrics, then every verdict), as posted to
 * `$GITHUB_STEP_SUMMARY`. Pure: the Vitest reporter writes it.
 */
import { num, renderDeltaTable, summaryDeltaRows } from './pr-comment.ts'

/** `pass`, `fail`, `inconclusive` (undecided at this sample size) or `invalid` (the client was the bottleneck). */
export type SummaryVerdictValue = 'pass' | 'fail' | 'inconclusive' | 'invalid'

/** One checked number of a verdict. */
export interface SummaryCheck {
  metric: string
  actual: number
  limit: number
  unit: string
  pass: boolean
  verdict: SummaryVerdictValue
  interval?: [number, number]
  pValue?: number
  neededRequests?: number
  detail?: string
}

/** One assertion's outcome. */
export interface SummaryVerdict {
  matcher: string
  pass: boolean
  verdict: SummaryVerdictValue
  summary: string
  checks: SummaryCheck[]
}

/** Headline numbers of one result (null when the run produced none). */
export interface SummaryMetrics {
  completed: number
  failed: number
  duration_s: number
  request_throughput: number
  /** Null for a pooling run (no output tokens). */
  output_throughput: number | null
  mean_ttft_ms: number | null
  p99_ttft_ms: number | null
  mean_tpot_ms: number | null
  mean_itl_ms: number | null
  /** End-to-end latency: the headline of a pooling run. */
  mean_e2el_ms?: number | null
  p99_e2el_ms?: number | null
}

/** One benchmark in the run summary. */
export interface SummaryBenchmark {
  /** Suite file relative to the project root. */
  file: string
  /** `describe > benchmark`. */
  name: string
  state: 'passed' | 'failed' | 'skipped' | 'pending'
  /**
   * The benchmark's verdict: `invalid` when the client self-check found it saturated, else the
   * worst of its checks (`fail` > `inconclusive` > `pass`); `fail` for a failed benchmark without
   * a failing check (an error); null when it did not run.
   */
  verdict: SummaryVerdictValue | null
  /** Why the run is invalid, in the client self-check's words. */
  invalidReason?: string
  /** Rounds the run took to decide its checks. */
  rounds?: number
  /** The result's `client_health` (docs/client-health.md), when the run measured it. */
  clientHealth?: Record<string, unknown>
  durationMs: number | null
  /** Configuration fingerprint (what the baseline is keyed on). */
  fingerprint: string
  /** Python-schema result file (a name in the result directory), when one was written. */
  resultFile: string | null
  metrics: SummaryMetrics | null
  verdicts: SummaryVerdict[]
  /** Error messages of a failed benchmark (assertions, endpoint, configuration). */
  errors: string[]
}

/** The run summary JSON (`servebench-summary.json`). */
export interface RunSummary {
  date: string
  /** Vitest's end reason. */
  reason: 'passed' | 'failed' | 'interrupted'
  benchmarks: SummaryBenchmark[]
}

const STATE_ICON = { passed: '✅', failed: '❌', skipped: '⏭️', pending: '⏸️' } as const
const VERDICT_ICON = { pass: '✅', fail: '❌', inconclusive: '❔', invalid: '⚠️' } as const
const CHECK_MARK = { pass: '✓', fail: '✗', inconclusive: '?', invalid: '!' } as const

/**
 * Renders the summary as GitHub-flavoured Markdown: the key metrics, then one row per checked
 * metric (base, head, change, interval, verdict), then every verdict. `shard` (`2/3`) goes in the
 * heading, so the parts that shards append to one step summary stay apart.
 */
export function renderMarkdownSummary(summary: RunSummary, options: { shard?: string } = {}): string {
  const { benchmarks } = summary
  const failed = benchmarks.filter((b) => b.state === 'failed').length
  const shard = options.shard ? ` (shard ${options.shard})` : ''
  const head = `## servebench${shard}: ${benchmarks.length} benchmark${benchmarks.length === 1 ? '' : 's'}, ${failed === 0 ? 'all passed' : `${failed} failed`}`
  if (benchmarks.length === 0) return `${head}\n\nNo serveBench benchmarks ran.\n`
  const rows = benchmarks.map((b) => {
    const m = b.metrics
    const cells = [
      b.verdict === 'invalid' || (b.verdict === 'inconclusive' && b.state === 'passed')
        ? VERDICT_ICON[b.verdict]
        : STATE_ICON[b.state],
      escapeCell(`${b.file} › ${b.name}`),
      m ? `${m.completed}${m.failed > 0 ? ` (${m.failed} failed)` : ''}` : '–',
      m ? fixed(m.request_throughput, 2) : '–',
      m ? fixed(m.output_throughput, 1) : '–',
      m ? `${fixed(m.mean_ttft_ms, 1)} / ${fixed(m.p99_ttft_ms, 1)}` : '–',
      m ? fixed(m.mean_tpot_ms, 2) : '–',
      m ? fixed(m.mean_itl_ms, 2) : '–',
    ]
    return `| ${cells.join(' | ')} |`
  })
  const table = [
    '| | Benchmark | Requests | Req/s | Output tok/s | TTFT mean / p99 (ms) | TPOT mean (ms) | ITL mean (ms) |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ]
  const verdicts: string[] = []
  for (const b of benchmarks) {
    if (b.invalidReason)
      verdicts.push(`- ⚠️ **${escapeCell(b.name)}** invalid: ${escapeCell(b.invalidReason)}`)
    for (const v of b.verdicts) {
      const icon = v.pass && v.verdict !== 'pass' ? VERDICT_ICON[v.verdict] : v.pass ? '✅' : '❌'
      verdicts.push(`- ${icon} **${escapeCell(b.name)}** \`${v.matcher}\`: ${escapeCell(v.summary)}`)
      for (const c of v.checks.filter((c) => c.detail !== undefined || !v.pass || c.verdict !== 'pass')) {
        verdicts.push(
          `  - ${CHECK_MARK[c.verdict] ?? (c.pass ? '✓' : '✗')} ${escapeCell(c.metric)}: ${escapeCell(c.detail ?? checkNumbers(c))}`,
        )
      }
    }
    for (const e of b.errors) {
      if (!b.verdicts.some((v) => e.includes(v.summary)))
        verdicts.push(`- ❌ **${escapeCell(b.name)}**: ${escapeCell(firstLine(e))}`)
    }
  }
  const parts = [head, '', ...table]
  const checks = summaryDeltaRows(summary)
  if (checks.length > 0) parts.push('', '### Checks', '', ...renderDeltaTable(checks))
  if (verdicts.length > 0) parts.push('', '### Verdicts', '', ...verdicts)
  return `${parts.join('\n')}\n`
}

// A check without a detail line still shows its numbers: `412 ms (95% interval 380 … 450 ms), limit 300 ms`.
function checkNumbers(c: SummaryCheck): string {
  const interval = c.interval
    ? ` (interval ${num(c.interval[0], c.unit)} … ${num(c.interval[1], c.unit)})`
    : ''
  const needed =
    c.neededRequests !== undefined && Number.isFinite(c.neededRequests)
      ? `; about ${c.neededRequests} requests would decide it`
      : ''
  return `${num(c.actual, c.unit)}${interval}, limit ${num(c.limit, c.unit)}${needed}`
}

function fixed(v: number | null, digits: number): string {
  return v === null || !Number.isFinite(v) ? '–' : v.toFixed(digits)
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? ''
}
