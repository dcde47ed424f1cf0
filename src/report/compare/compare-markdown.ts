/**
 * `servebench compare A B --markdown`: the comparison of two saved results as the pull-request
 * delta table (`pr-comment.ts`). A is the base, B the head. When both files hold the per-request
 * arrays (`--save-detailed`), each latency row gets the block-bootstrap interval of its relative
 * change and the same three-valued verdict as `toMatchBaseline`; otherwise the verdict compares the
 * point change with the tolerance and the row has no interval. Pure.
 */

import { type BlockedRun, blockBootstrapChange } from '../../metrics/block-bootstrap.ts'
import { assignBlocks } from '../../metrics/blocks.ts'
import { decideChange } from '../../metrics/decide.ts'
import { bufferStatistic } from '../../metrics/fast-statistic.ts'
import { type DeltaRow, headline, PR_COMMENT_MARKER, renderDeltaTable } from '../summary/pr-comment.ts'
import type { VerdictValue } from '../summary/run-summary.ts'
import { COMPARE_METRICS, type CompareInput } from './compare.ts'

/** Options of the Markdown comparison. */
export interface CompareMarkdownOptions {
  /** Relative change toward worse tolerated before a row fails, 0–1. @default 0.1 */
  tolerance?: number
  /** Significance level of the intervals (the interval shown is the 1 − alpha one). @default 0.05 */
  alpha?: number
}

/** The defaults of {@link CompareMarkdownOptions}. */
export const DEFAULT_COMPARE_MARKDOWN = { tolerance: 0.1, alpha: 0.05 } as const

// Counts and run length are shown in the console diff; in a pull request they are noise.
const SKIPPED = new Set(['completed', 'duration', 'max_concurrent_requests'])
const RESAMPLES = 1000

/** One row per metric present in both results, in `servebench compare`'s order. */
export function compareDeltaRows(
  a: CompareInput,
  b: CompareInput,
  options: CompareMarkdownOptions = {},
): DeltaRow[] {
  const tolerance = options.tolerance ?? DEFAULT_COMPARE_MARKDOWN.tolerance
  const alpha = options.alpha ?? DEFAULT_COMPARE_MARKDOWN.alpha
  const benchmark = `${baseName(a.path)} → ${baseName(b.path)}`
  const samplesA = requestSamples(a.result)
  const samplesB = requestSamples(b.result)
  const rows: DeltaRow[] = []
  for (const metric of COMPARE_METRICS) {
    if (SKIPPED.has(metric.key)) continue
    const base = numberAt(a.result, metric.key)
    const head = numberAt(b.result, metric.key)
    if (base === undefined || head === undefined) continue
    const direction = metric.lowerIsBetter ? 'lower-is-better' : 'higher-is-better'
    const change = base === 0 ? null : head / base - 1
    const row: DeltaRow = {
      benchmark,
      metric: metric.key,
      unit: unitOf(metric.key),
      base,
      head,
      change,
      verdict: 'pass',
    }
    const m = /^(mean|median|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$/.exec(metric.key)
    const runA = m ? samplesA?.[m[2] as Family] : undefined
    const runB = m ? samplesB?.[m[2] as Family] : undefined
    const statistic = m ? bufferStatistic(m[1]!) : undefined
    if (runA && runB && statistic && runA.values.length > 0 && runB.values.length > 0) {
      const estimate = blockBootstrapChange([runA], [runB], statistic, direction, {
        resamples: RESAMPLES,
        confidence: 1 - alpha,
        seed: 0,
      })
      const decision = decideChange({
        change: estimate.relative,
        interval: estimate.interval,
        pValue: estimate.pValue,
        direction,
        tolerance,
        alpha,
        n: runB.values.length,
      })
      row.interval = estimate.interval
      row.intervalOf = 'change'
      row.verdict = decision.verdict
      if (decision.neededRequests !== undefined) row.neededRequests = decision.neededRequests
    } else if (metric.key === 'failed') {
      row.verdict = head > base ? 'fail' : 'pass'
    } else {
      row.verdict = pointVerdict(change, direction, tolerance)
    }
    rows.push(row)
  }
  return rows
}

/** The Markdown comment of `servebench compare A B --markdown`. */
export function renderCompareMarkdown(
  a: CompareInput,
  b: CompareInput,
  options: CompareMarkdownOptions = {},
): string {
  const rows = compareDeltaRows(a, b, options)
  const tolerance = options.tolerance ?? DEFAULT_COMPARE_MARKDOWN.tolerance
  const withInterval = rows.some((r) => r.interval !== undefined)
  const lines = [
    PR_COMMENT_MARKER,
    `## servebench compare: ${headline(rows)}`,
    '',
    `Base \`${a.path}\` (${String(a.result.date ?? '?')}), head \`${b.path}\` (${String(b.result.date ?? '?')}); ${(tolerance * 100).toFixed(0)}% tolerance.`,
    '',
    ...renderDeltaTable(rows, { benchmarkColumn: false }),
  ]
  if (!withInterval)
    lines.push(
      '',
      'No per-request data in these files (`--save-detailed`): verdicts compare the point change with the tolerance.',
    )
  return `${lines.join('\n')}\n`
}

type Family = 'ttft' | 'tpot' | 'itl' | 'e2el'

/** The per-request samples (ms) of a result saved with `--save-detailed`, each with its blocks. */
function requestSamples(result: Record<string, unknown>): Record<Family, BlockedRun> | undefined {
  const ttfts = numbers(result.ttfts)
  const latencies = numbers(result.latencies)
  const outputLens = numbers(result.output_lens)
  const starts = numbers(result.start_times)
  const itls = Array.isArray(result.itls) ? (result.itls as unknown[]) : undefined
  if (!ttfts || !latencies || !starts || ttfts.length !== latencies.length || starts.length !== ttfts.length)
    return undefined
  const errors = Array.isArray(result.errors) ? (result.errors as unknown[]) : []
  const concurrency = typeof result.max_concurrency === 'number' ? result.max_concurrency : undefined
  const ok = ttfts.map((_, i) => (errors[i] === undefined || errors[i] === '') && latencies[i]! > 0)
  const blocks = assignBlocks(starts, concurrency === undefined ? {} : { concurrency })
  const pick = (values: number[], owners: number[]): BlockedRun => ({
    values,
    blocks: owners.map((i) => blocks[i]!),
  })
  const idx = ttfts.map((_, i) => i).filter((i) => ok[i])
  const tpotIdx = idx.filter((i) => (outputLens?.[i] ?? 0) > 1)
  const itlValues: number[] = []
  const itlOwners: number[] = []
  for (const i of idx) {
    const gaps = itls?.[i]
    if (!Array.isArray(gaps)) continue
    for (const g of gaps) {
      if (typeof g !== 'number') continue
      itlValues.push(g * 1000)
      itlOwners.push(i)
    }
  }
  return {
    ttft: pick(
      idx.map((i) => ttfts[i]! * 1000),
      idx,
    ),
    e2el: pick(
      idx.map((i) => latencies[i]! * 1000),
      idx,
    ),
    tpot: pick(
      tpotIdx.map((i) => ((latencies[i]! - ttfts[i]!) / (outputLens![i]! - 1)) * 1000),
      tpotIdx,
    ),
    itl: pick(itlValues, itlOwners),
  }
}

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1)
}

function pointVerdict(
  change: number | null,
  direction: 'lower-is-better' | 'higher-is-better',
  tolerance: number,
): VerdictValue {
  if (change === null) return 'inconclusive'
  const worse = direction === 'lower-is-better' ? change : -change
  return worse > tolerance ? 'fail' : 'pass'
}

function unitOf(key: string): string {
  if (key.endsWith('_ms')) return 'ms'
  if (key === 'request_throughput') return 'req/s'
  if (key.endsWith('throughput') || key === 'max_output_tokens_per_s') return 'tok/s'
  return ''
}

function numberAt(o: Record<string, unknown>, key: string): number | undefined {
  const v = o[key]
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

function numbers(v: unknown): number[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === 'number') ? (v as number[]) : undefined
}
