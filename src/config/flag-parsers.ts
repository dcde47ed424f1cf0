/**
 * Parsers of the flag values that are more than a number or a name: percentile lists, `--goodput`
 * pairs, ratios, JSON objects. Each throws an `Error` whose message the resolver files under the
 * flag (and the DSL door under its field).
 */
import type { GoodputConfig, PercentileMetric } from './bench-config.ts'
import { PERCENTILE_METRICS } from './bench-config.ts'

const GOODPUT_KEYS = ['ttft', 'tpot', 'e2el'] as const

export function parsePercentileMetrics(value: string): PercentileMetric[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
  const bad = names.filter((name) => !(PERCENTILE_METRICS as readonly string[]).includes(name))
  if (bad.length > 0 || names.length === 0) {
    throw new Error(
      `has unknown metric ${bad.map((b) => `"${b}"`).join(', ') || '(empty)'}; valid: ${PERCENTILE_METRICS.join(', ')}`,
    )
  }
  return names as PercentileMetric[]
}

export function parsePercentiles(value: string): number[] {
  return value.split(',').map((part) => {
    const p = Number(part.trim())
    if (part.trim() === '' || !Number.isFinite(p) || p < 0 || p > 100) {
      throw new Error(`must be comma-separated numbers in [0, 100] (got "${part.trim()}")`)
    }
    return p
  })
}

/** `--goodput ttft:100 tpot:50`: milliseconds, keys ttft, tpot, e2el. */
export function parseGoodput(values: string[] | string): GoodputConfig {
  const goodput: GoodputConfig = {}
  for (const pair of Array.isArray(values) ? values : [values]) {
    const [key, raw, ...rest] = pair.split(':')
    const ms = Number(raw)
    if (!key || raw === undefined || rest.length > 0 || raw.trim() === '' || !Number.isFinite(ms)) {
      throw new Error(`must be KEY:VALUE pairs such as ttft:100 (got "${pair}")`)
    }
    if (!(GOODPUT_KEYS as readonly string[]).includes(key)) {
      throw new Error(`has unknown key "${key}"; valid: ${GOODPUT_KEYS.join(', ')}`)
    }
    if (ms < 0) throw new Error(`value for ${key} must be >= 0 ms (got ${ms})`)
    goodput[key as (typeof GOODPUT_KEYS)[number]] = ms
  }
  return goodput
}

/** `--timeline-itl-thresholds 25,50`: two ascending ITL thresholds in ms. */
export function parseItlThresholds(value: string): [number, number] {
  const parts = value.split(',').map((p) => p.trim())
  const ms = parts.map(Number)
  const [low, high] = ms
  if (
    parts.length !== 2 ||
    parts.some((p) => p === '') ||
    !ms.every((v) => Number.isFinite(v) && v > 0) ||
    !(low! < high!)
  ) {
    throw new Error(
      `must be two ascending numbers of ms separated by a comma, such as 25,50 (got "${value}")`,
    )
  }
  return [low!, high!]
}

/** A fraction of requests in [0, 1]. */
export function parseRatio(value: string): number {
  const ratio = Number(value)
  if (value.trim() === '' || !Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new Error(`must be a fraction between 0 and 1, such as 0.05 (got "${value}")`)
  }
  return ratio
}

export function parseJsonObject(value: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch (error) {
    throw new Error(`must be a JSON object (${(error as Error).message})`)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`must be a JSON object such as '{"temperature": 0}' (got ${value})`)
  }
  return parsed as Record<string, unknown>
}
