import type { GoodputConfig } from '../config/bench-config.ts'
import type { RequestRecord } from '../config/records.ts'

/**
 * Time per output token after the first, in seconds, or null when the request produced one token
 * or fewer (such requests are left out of the TPOT statistics).
 */
export function requestTpotS(record: Pick<RequestRecord, 'latencyS' | 'ttftS' | 'outputLen'>): number | null {
  if (record.outputLen <= 1) return null
  return (record.latencyS - record.ttftS) / (record.outputLen - 1)
}

/**
 * Whether a request meets every configured SLO (milliseconds, inclusive). Failed requests are never
 * good; a request with one output token or fewer counts as TPOT 0.
 * Python: calculate_metrics (vllm/benchmarks/serve.py), `slo >= value` per metric.
 */
export function isGood(record: RequestRecord, goodput: GoodputConfig): boolean {
  if (!record.success) return false
  // Compare in seconds, as Python does, so edge values land on the same side.
  if (goodput.ttft !== undefined && !(goodput.ttft / 1000 >= record.ttftS)) return false
  if (goodput.tpot !== undefined && !(goodput.tpot / 1000 >= (requestTpotS(record) ?? 0))) return false
  if (goodput.e2el !== undefined && !(goodput.e2el / 1000 >= record.latencyS)) return false
  return true
}

/** True when at least one SLO is set; Python treats an empty `--goodput` dict as "no goodput". */
export function hasGoodput(goodput: GoodputConfig | undefined): goodput is GoodputConfig {
  return (
    goodput !== undefined &&
    (goodput.ttft !== undefined || goodput.tpot !== undefined || goodput.e2el !== undefined)
  )
}
