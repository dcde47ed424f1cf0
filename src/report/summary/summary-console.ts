/**
 * The console lines of a run summary's benchmarks, for the Vitest reporter and
 * `servebench merge-summaries`: one line per benchmark, one per failed check. Pure.
 */
import { formatLine } from './check-format.ts'
import type { SummaryBenchmark } from './run-summary.ts'
import { MARKS } from './verdict-marks.ts'

/** The checks that failed their assertion, one line each with its numbers: `✗ p99 TTFT 412.3 ms > 300 ms (95% CI …)`. */
export function failedCheckLines(b: SummaryBenchmark): string[] {
  return b.verdicts.flatMap((v) =>
    v.pass ? [] : v.checks.filter((c) => !c.pass).map((c) => `${formatLine(c)} (${v.matcher})`),
  )
}

/** `servebench ✓ chat.bench.ts › short chat  40 ok · 19.81 req/s · 1267.4 tok/s · TTFT 12.3/45.6 ms mean/p99 · TPOT 10.10 ms`. */
export function consoleLine(b: SummaryBenchmark): string {
  const icon =
    b.verdict === 'invalid'
      ? MARKS.invalid
      : b.state === 'passed'
        ? MARKS[b.verdict === 'inconclusive' ? 'inconclusive' : 'pass']
        : b.state === 'failed'
          ? MARKS.fail
          : '↓'
  const tag = b.verdict === 'invalid' ? ' [invalid]' : b.verdict === 'inconclusive' ? ' [inconclusive]' : ''
  const head = `servebench ${icon} ${b.file} › ${b.name}${tag}`
  const m = b.metrics
  if (!m) return `${head}  (${b.state === 'failed' ? 'no result' : b.state})`
  const f = (v: number | null | undefined, d: number): string => (v == null ? '–' : v.toFixed(d))
  if (m.output_throughput === null) {
    // A pooling run: no tokens stream back, so its headline is the end-to-end latency.
    const pooling = [
      `${m.completed} ok${m.failed > 0 ? `, ${m.failed} failed` : ''}`,
      `${f(m.request_throughput, 2)} req/s`,
      `E2EL ${f(m.mean_e2el_ms, 1)}/${f(m.p99_e2el_ms, 1)} ms mean/p99`,
    ]
    const client = clientSegment(b.clientHealth)
    if (client) pooling.push(client)
    return `${head}  ${pooling.join(' · ')}`
  }
  const parts = [
    `${m.completed} ok${m.failed > 0 ? `, ${m.failed} failed` : ''}`,
    `${f(m.request_throughput, 2)} req/s`,
    `${f(m.output_throughput, 1)} tok/s`,
    `TTFT ${f(m.mean_ttft_ms, 1)}/${f(m.p99_ttft_ms, 1)} ms mean/p99`,
    `TPOT ${f(m.mean_tpot_ms, 2)} ms`,
  ]
  const client = clientSegment(b.clientHealth)
  if (client) parts.push(client)
  return `${head}  ${parts.join(' · ')}`
}

// `client ok (loop p99 1.2 ms)` or `client SATURATED`: the self-check in a few characters.
function clientSegment(health: Record<string, unknown> | undefined): string | undefined {
  if (!health) return undefined
  if (health.saturated === true) return 'client SATURATED'
  const p99 = health.event_loop_delay_p99_ms
  return typeof p99 === 'number' ? `client ok (loop p99 ${p99.toFixed(1)} ms)` : 'client ok'
}
