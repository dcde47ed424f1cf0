/**
 * CSV exports (RFC 4180: comma-separated, CRLF line ends, quoted when needed) of a run's
 * per-request records and of the summary of one or more results, for spreadsheets and pandas.
 * Pure: the reporter and `servebench report --csv` write them.
 */

/** The columns of the per-request CSV, in order. */
export const REQUEST_CSV_COLUMNS = [
  'index',
  'start_time_s',
  'queue_time_s',
  'input_len',
  'output_len',
  'ttft_ms',
  'tpot_ms',
  'mean_itl_ms',
  'e2el_ms',
  'success',
  'error',
] as const

/** The latency metrics of the summary CSV, each as its mean, median and p99 in ms. */
const SUMMARY_LATENCY_METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const

/** The columns of the summary CSV, in order (a result's key of the same name, `name` first). */
export const SUMMARY_CSV_COLUMNS: readonly string[] = [
  'name',
  'date',
  'completed',
  'failed',
  'duration',
  'request_throughput',
  'output_throughput',
  'total_token_throughput',
  ...SUMMARY_LATENCY_METRICS.flatMap((m) => [`mean_${m}_ms`, `median_${m}_ms`, `p99_${m}_ms`]),
  'max_concurrent_requests',
]

/**
 * One row per request of a result that holds the per-request arrays (`--save-detailed`, or a
 * result in memory); undefined when it has none. Times in the result's seconds become ms here.
 */
export function requestsCsv(result: Record<string, unknown>): string | undefined {
  const latencies = arrayOf(result.latencies)
  const ttfts = arrayOf(result.ttfts)
  if (!latencies) return undefined
  const starts = arrayOf(result.start_times)
  const queues = arrayOf(result.queue_times)
  const inputs = arrayOf(result.input_lens)
  const outputs = arrayOf(result.output_lens)
  const itls = arrayOf(result.itls)
  const errors = arrayOf(result.errors)
  const rows: string[] = [REQUEST_CSV_COLUMNS.join(',')]
  for (let i = 0; i < latencies.length; i++) {
    const error = typeof errors?.[i] === 'string' ? (errors[i] as string) : ''
    const latency = numberOr(latencies[i])
    const ttft = numberOr(ttfts?.[i])
    const out = numberOr(outputs?.[i])
    const gaps = Array.isArray(itls?.[i])
      ? (itls[i] as unknown[]).filter((g): g is number => typeof g === 'number')
      : []
    const ok = error === '' && latency !== undefined && latency > 0
    const tpot =
      ok && ttft !== undefined && out !== undefined && out > 1
        ? ((latency - ttft) / (out - 1)) * 1000
        : undefined
    const cells = [
      i,
      numberOr(starts?.[i]),
      numberOr(queues?.[i]),
      numberOr(inputs?.[i]),
      out,
      ok && ttft !== undefined ? ttft * 1000 : undefined,
      tpot,
      gaps.length > 0 ? (gaps.reduce((s, g) => s + g, 0) / gaps.length) * 1000 : undefined,
      ok ? latency * 1000 : undefined,
      ok,
      error,
    ]
    rows.push(cells.map(cell).join(','))
  }
  return `${rows.join('\r\n')}\r\n`
}

/** One row per named result, with {@link SUMMARY_CSV_COLUMNS}; a key the result lacks is empty. */
export function summaryCsv(
  results: ReadonlyArray<{ name: string; result: Record<string, unknown> }>,
): string {
  const rows: string[] = [SUMMARY_CSV_COLUMNS.join(',')]
  for (const { name, result } of results) {
    rows.push(SUMMARY_CSV_COLUMNS.map((c) => (c === 'name' ? cell(name) : cell(result[c]))).join(','))
  }
  return `${rows.join('\r\n')}\r\n`
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

function arrayOf(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined
}
