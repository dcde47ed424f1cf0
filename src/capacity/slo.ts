/**
 * The SLO language of a capacity search: `--slo METRIC:BOUND` on the command line, the `slo` option
 * of `serveBench.capacity` in suites. A metric is a key of the result JSON (`p99_ttft_ms`,
 * `mean_tpot_ms`, `median_itl_ms`, `p90_e2el_ms`), `error_rate`, or `goodput` (the fraction of
 * requests that meet the `--goodput` SLOs); Python's `--goodput` form (`ttft:500`) is a per-request
 * limit that `goodput` (by default 0.99 of the requests) must meet. Pure.
 */
import type { GoodputConfig } from '../config/bench-config.ts'
import type { ConfigIssue } from '../errors.ts'
import type { CapacitySlo } from './capacity-result.ts'

/** The latency metrics an SLO can bound, as the result JSON names them. */
export const SLO_LATENCY_METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const
export type SloLatencyMetric = (typeof SLO_LATENCY_METRICS)[number]

/** The statistics of a latency SLO: the result JSON's prefixes, and any percentile. */
export const SLO_STATISTICS = ['mean', 'median', 'p<N>'] as const

/** The share of requests that must meet Python's `--goodput` form when no `goodput:F` SLO says. */
export const DEFAULT_GOODPUT_FRACTION = 0.99

/** The metrics `--slo` accepts, in the words of its error messages. */
export const VALID_SLO_METRICS =
  '<mean|median|pN>_<ttft|tpot|itl|e2el>_ms (e.g. p99_ttft_ms, mean_tpot_ms, p90_e2el_ms, median_itl_ms), error_rate, goodput, or the --goodput form ttft, tpot, e2el'

const LATENCY_KEY = /^(mean|median|p(\d+(?:\.\d+)?))_(ttft|tpot|itl|e2el)_ms$/
const LABELS: Readonly<Record<SloLatencyMetric, string>> = {
  ttft: 'TTFT',
  tpot: 'TPOT',
  itl: 'ITL',
  e2el: 'E2EL',
}

/** SLOs read from their texts, with the per-request limits of the `--goodput` form gathered. */
export interface ParsedSlos {
  slos: CapacitySlo[]
  /** The per-request limits of `goodput` SLOs (Python's `--goodput` form in `--slo`, and `--goodput`). */
  goodput?: GoodputConfig
}

/**
 * Reads `METRIC:BOUND` texts (`p99_ttft_ms:500`, upstream's `p99_ttft_ms:<=500`, `error_rate:0.01`,
 * `goodput:0.95`, the `--goodput` form `ttft:500`). Each problem is an issue at `path`.
 * `goodput` is the run's `--goodput`; a `goodput` SLO without per-request limits is an issue.
 */
export function parseSlos(
  texts: readonly string[],
  path: string,
  goodput: GoodputConfig | undefined,
  issues: ConfigIssue[],
): ParsedSlos {
  const slos: CapacitySlo[] = []
  const perRequest: GoodputConfig = { ...goodput }
  let fraction: number | undefined
  let pythonForm = false
  const seen = new Set<string>()
  for (const text of texts) {
    const colon = text.lastIndexOf(':')
    const metric = (colon < 0 ? text : text.slice(0, colon)).trim()
    let boundText = colon < 0 ? '' : text.slice(colon + 1).trim()
    const op = /^(<=|>=|<|>)/.exec(boundText)?.[1]
    boundText = boundText.slice(op?.length ?? 0).trim()
    const bound = boundText === '' ? Number.NaN : Number(boundText)
    if (colon < 0 || !Number.isFinite(bound) || bound < 0) {
      issues.push({
        path,
        message: `must be METRIC:BOUND with a bound of 0 or more, such as p99_ttft_ms:500 (got "${text}")`,
      })
      continue
    }
    const kind = kindOf(metric)
    if (kind === undefined) {
      issues.push({
        path,
        message: `has an unknown metric "${metric}" in "${text}"; valid: ${VALID_SLO_METRICS}`,
      })
      continue
    }
    if (op !== undefined && (op.startsWith('<') ? 'max' : 'min') !== kind) {
      issues.push({
        path,
        message: `${metric} is ${kind === 'max' ? 'an upper' : 'a lower'} bound; "${op}" in "${text}" asks the opposite`,
      })
      continue
    }
    if ((metric === 'error_rate' || metric === 'goodput') && bound > 1) {
      issues.push({ path, message: `${metric} is a fraction from 0 to 1 (got ${bound})` })
      continue
    }
    if (metric === 'ttft' || metric === 'tpot' || metric === 'e2el') {
      perRequest[metric] = bound
      pythonForm = true
      continue
    }
    if (metric === 'goodput') fraction = bound
    if (seen.has(metric)) {
      issues.push({ path, message: `names ${metric} twice; give each metric one bound` })
      continue
    }
    seen.add(metric)
    if (metric !== 'goodput') slos.push({ metric, bound, kind })
  }
  const hasLimits = Object.values(perRequest).some((v) => v !== undefined)
  if (fraction !== undefined || pythonForm) {
    if (!hasLimits)
      issues.push({
        path,
        message:
          'goodput needs per-request limits: give --goodput ttft:MS tpot:MS e2el:MS, or the --goodput form in --slo (ttft:500)',
      })
    else slos.push({ metric: 'goodput', bound: fraction ?? DEFAULT_GOODPUT_FRACTION, kind: 'min' })
  }
  if (texts.length > 0 && slos.length === 0 && issues.length === 0)
    issues.push({ path, message: `names no SLO; valid metrics: ${VALID_SLO_METRICS}` })
  return { slos, ...(hasLimits && slos.some((s) => s.metric === 'goodput') ? { goodput: perRequest } : {}) }
}

/** `max` for a metric that must stay at or below its bound, `min` at or above; undefined when unknown. */
export function kindOf(metric: string): 'max' | 'min' | undefined {
  if (LATENCY_KEY.test(metric)) {
    const p = /^p(\d+(?:\.\d+)?)_/.exec(metric)
    if (p && !(Number(p[1]) > 0 && Number(p[1]) < 100)) return undefined
    return 'max'
  }
  if (metric === 'error_rate' || metric === 'ttft' || metric === 'tpot' || metric === 'e2el') return 'max'
  if (metric === 'goodput') return 'min'
  return undefined
}

/** A latency SLO's statistic and metric (`p99_ttft_ms` → `p99`, `ttft`); undefined for the others. */
export function latencyParts(metric: string): { statistic: string; latency: SloLatencyMetric } | undefined {
  const m = LATENCY_KEY.exec(metric)
  if (!m) return undefined
  return { statistic: m[1]!, latency: m[3] as SloLatencyMetric }
}

/** An SLO as written: `p99_ttft_ms:500`. */
export function sloText(slo: CapacitySlo): string {
  return `${slo.metric}:${slo.bound}`
}

/** An SLO in words: `p99 TTFT ≤ 500 ms`, `error rate ≤ 0.01`, `goodput ≥ 0.95`. */
export function sloLabel(slo: CapacitySlo, goodput?: GoodputConfig): string {
  const parts = latencyParts(slo.metric)
  if (parts) return `${parts.statistic} ${LABELS[parts.latency]} ≤ ${slo.bound} ms`
  if (slo.metric === 'error_rate') return `error rate ≤ ${slo.bound}`
  const limits = goodput
    ? Object.entries(goodput)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${LABELS[k as SloLatencyMetric]} ≤ ${v} ms`)
        .join(', ')
    : ''
  return `goodput ≥ ${slo.bound}${limits ? ` (${limits})` : ''}`
}
