/**
 * Python's console result block, character for character (trailing spaces included). Pure: returns
 * the text; the CLI prints it. Python: benchmark (vllm/benchmarks/serve.py).
 */
import type { PercentileMetric } from '../../config/bench-config.ts'
import { PERCENTILE_METRICS } from '../../config/bench-config.ts'
import { percentileWord } from '../../metrics/calculate.ts'
import { pyFixed } from '../../metrics/py-number.ts'
import { terminalSafe } from '../../terminal-text.ts'
import type { BenchResult } from '../result/result-types.ts'

/** What decides which rows and sections {@link formatResultTable} prints. */
export interface ResultTableOptions {
  percentileMetrics: PercentileMetric[]
  metricPercentiles: number[]
  /** False with `--skip-tokenizer-init`: token rows and the ttft/tpot/itl sections are left out. */
  hasTokenizer: boolean
  /** `--goodput` given: print the goodput row. */
  goodputSet: boolean
}

const WIDTH = 50

/** Python `'{s:{c}^{n}}'.format(...)`: centred, the odd pad character on the right. */
export function center(text: string, fill: string, width: number = WIDTH): string {
  const pad = Math.max(0, width - text.length)
  const left = Math.floor(pad / 2)
  return fill.repeat(left) + text + fill.repeat(pad - left)
}

/** Python `'{:<40} {:<10}'`: an int or text value. */
export function row(label: string, value: number | string): string {
  return `${label.padEnd(40)} ${String(value).padEnd(10)}`
}

/** Python `'{:<40} {:<10.2f}'`. */
export function floatRow(label: string, value: number): string {
  return row(label, pyFixed(value, 2))
}

const SECTIONS: Record<PercentileMetric, { name: string; header: string }> = {
  ttft: { name: 'TTFT', header: 'Time to First Token' },
  tpot: { name: 'TPOT', header: 'Time per Output Token (excl. 1st token)' },
  itl: { name: 'ITL', header: 'Inter-token Latency' },
  e2el: { name: 'E2EL', header: 'End-to-end Latency' },
  client_queue_time: { name: 'Client Queue Time', header: 'Client-side Queueing' },
  e2el_including_client_queue: {
    name: 'E2EL incl. Client Queue',
    header: 'Queue-inclusive End-to-end Latency',
  },
}

const num = (result: Readonly<Record<string, unknown>>, key: string): number => {
  const value = result[key]
  return typeof value === 'number' ? value : Number.NaN
}

/**
 * The `Serving Benchmark Result` block as Python prints it, one `\n`-terminated line per row.
 * A statistics section appears when its family is selected and its keys are in the result (the
 * metrics step already left out families that do not apply). The probe section (before the
 * statistics) and the speculative-decoding section (after them) appear when their keys are present.
 */
export function formatResultTable(result: BenchResult, options: ResultTableOptions): string {
  const lines: string[] = [center(' Serving Benchmark Result ', '=')]
  lines.push(row('Successful requests:', result.completed))
  lines.push(row('Failed requests:', result.failed))
  if (result.max_concurrency !== null && result.max_concurrency !== undefined) {
    lines.push(row('Maximum request concurrency:', result.max_concurrency))
  }
  if (result.request_rate !== 'inf')
    lines.push(floatRow('Request rate configured (RPS):', result.request_rate))
  lines.push(floatRow('Benchmark duration (s):', result.duration))
  lines.push(row('Total input tokens:', result.total_input_tokens))
  if (options.hasTokenizer) lines.push(row('Total generated tokens:', result.total_output_tokens))
  if (typeof result.total_cached_tokens === 'number')
    lines.push(row('Total cached tokens:', result.total_cached_tokens))
  lines.push(floatRow('Request throughput (req/s):', result.request_throughput))
  if (options.goodputSet) lines.push(floatRow('Request goodput (req/s):', result.request_goodput ?? 0))
  if (options.hasTokenizer) {
    lines.push(floatRow('Output token throughput (tok/s):', result.output_throughput))
    lines.push(floatRow('Peak output token throughput (tok/s):', result.max_output_tokens_per_s))
  }
  lines.push(floatRow('Peak concurrent requests:', result.max_concurrent_requests))
  if (result.rtfx > 0) lines.push(floatRow('RTFx (Inverse Real-Time Factor):', result.rtfx))
  if (options.hasTokenizer)
    lines.push(floatRow('Total token throughput (tok/s):', result.total_token_throughput))

  lines.push(...probeSection(result))
  lines.push(...statisticsSections(result, options))
  // Python prints spec-decode figures only when no diffusion figures took their place.
  if (typeof result.spec_decode_acceptance_rate === 'number' && !('diffusion_committed_tokens' in result)) {
    lines.push(...specDecodeSection(result))
  }
  lines.push('='.repeat(WIDTH))
  return `${lines.join('\n')}\n`
}

/** The `Probe Requests` section, when the result has probe keys (generation and pooling tables). */
export function probeSection(result: Record<string, unknown>): string[] {
  if (typeof result.probe_completed !== 'number') return []
  return [
    center('Probe Requests', '-'),
    row('Probe requests completed:', result.probe_completed),
    row('Probe requests failed:', num(result, 'probe_failed')),
    floatRow('Median probe E2EL (ms):', num(result, 'probe_median_e2el_ms')),
    floatRow('P99 probe E2EL (ms):', num(result, 'probe_p99_e2el_ms')),
    floatRow('Max probe E2EL (ms):', num(result, 'probe_max_e2el_ms')),
  ]
}

/**
 * The statistics sections of the families selected whose keys are in the result, in
 * {@link PERCENTILE_METRICS} order: a header, Mean, Median and each percentile. Without a tokenizer
 * the ttft, tpot and itl sections are left out.
 */
export function statisticsSections(
  result: Readonly<Record<string, unknown>>,
  options: Pick<ResultTableOptions, 'percentileMetrics' | 'metricPercentiles' | 'hasTokenizer'>,
): string[] {
  const lines: string[] = []
  for (const family of PERCENTILE_METRICS) {
    if (!options.percentileMetrics.includes(family) || !(`mean_${family}_ms` in result)) continue
    if (!options.hasTokenizer && (family === 'ttft' || family === 'tpot' || family === 'itl')) continue
    const { name, header } = SECTIONS[family]
    lines.push(center(header, '-'))
    lines.push(floatRow(`Mean ${name} (ms):`, num(result, `mean_${family}_ms`)))
    lines.push(floatRow(`Median ${name} (ms):`, num(result, `median_${family}_ms`)))
    for (const p of options.metricPercentiles) {
      const word = percentileWord(p)
      lines.push(floatRow(`P${word} ${name} (ms):`, num(result, `p${word}_${family}_ms`)))
    }
  }
  return lines
}

function specDecodeSection(result: BenchResult): string[] {
  const lines = [center('Speculative Decoding', '-')]
  lines.push(floatRow('Acceptance rate (%):', num(result, 'spec_decode_acceptance_rate')))
  lines.push(floatRow('Acceptance length:', num(result, 'spec_decode_acceptance_length')))
  lines.push(row('Drafts:', num(result, 'spec_decode_num_drafts')))
  lines.push(row('Draft tokens:', num(result, 'spec_decode_draft_tokens')))
  lines.push(row('Accepted tokens:', num(result, 'spec_decode_accepted_tokens')))
  const perPosition = result.spec_decode_per_position_acceptance_rates
  if (Array.isArray(perPosition) && perPosition.length > 0) {
    lines.push('Per-position acceptance (%):')
    perPosition.forEach((rate, i) => {
      lines.push(floatRow(`  Position ${i}:`, Number(rate) * 100))
    })
  }
  return lines
}

/** How many failed requests Python lists. */
const MAX_LISTED_ERRORS = 10

/**
 * Python's failure listing: a header and `Error {i}: {error}` for the first 10 failed requests, as
 * lines without a final newline (print it with `console.log`); `''` when none failed. Accepts the
 * result's whole `errors` array: the `''` entries of successful requests are skipped.
 */
export function formatFailedRequests(errors: readonly string[]): string {
  const failed = errors.filter((error) => error !== '')
  if (failed.length === 0) return ''
  const lines = ['Failed requests during benchmark run detected (capping to 10):']
  failed.slice(0, MAX_LISTED_ERRORS).forEach((error, i) => {
    lines.push(`Error ${i}: ${terminalSafe(error)}`)
  })
  return lines.join('\n')
}
