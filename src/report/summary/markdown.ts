/**
 * The Markdown run summary (a table of key metrics, then every verdict), as posted to
 * `$GITHUB_STEP_SUMMARY`. Pure: the Vitest reporter writes it.
 */
import { num, renderDeltaTable, summaryDeltaRows } from './pr-comment.ts'
import type { RunSummary, VerdictCheck } from './run-summary.ts'
import { MARKS, STATE_ICONS, VERDICT_ICONS } from './verdict-marks.ts'

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
        ? VERDICT_ICONS[b.verdict]
        : STATE_ICONS[b.state],
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
      verdicts.push(
        `- ${VERDICT_ICONS.invalid} **${escapeCell(b.name)}** invalid: ${escapeCell(b.invalidReason)}`,
      )
    for (const v of b.verdicts) {
      // An undecided or invalid matcher keeps its own mark, whatever the policy made of it.
      const own = v.verdict === 'inconclusive' || v.verdict === 'invalid' || (v.pass && v.verdict !== 'pass')
      const icon = VERDICT_ICONS[own ? v.verdict : v.pass ? 'pass' : 'fail']
      verdicts.push(`- ${icon} **${escapeCell(b.name)}** \`${v.matcher}\`: ${escapeCell(v.summary)}`)
      for (const c of v.checks.filter((c) => c.detail !== undefined || !v.pass || c.verdict !== 'pass')) {
        verdicts.push(
          `  - ${MARKS[c.verdict] ?? MARKS[c.pass ? 'pass' : 'fail']} ${escapeCell(c.metric)}: ${escapeCell(c.detail ?? checkNumbers(c))}`,
        )
      }
    }
    for (const e of b.errors) {
      if (!b.verdicts.some((v) => e.includes(v.summary)))
        verdicts.push(`- ${VERDICT_ICONS.fail} **${escapeCell(b.name)}**: ${escapeCell(firstLine(e))}`)
    }
    for (const w of b.warnings ?? [])
      verdicts.push(`- ${VERDICT_ICONS.invalid} **${escapeCell(b.name)}** note: ${escapeCell(w)}`)
  }
  const parts = [head, '', ...table]
  const checks = summaryDeltaRows(summary)
  if (checks.length > 0) parts.push('', '### Checks', '', ...renderDeltaTable(checks))
  if (verdicts.length > 0) parts.push('', '### Verdicts', '', ...verdicts)
  return `${parts.join('\n')}\n`
}

// A check without a detail line still shows its numbers: `412 ms (95% interval 380 … 450 ms), limit 300 ms`.
function checkNumbers(c: VerdictCheck): string {
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
