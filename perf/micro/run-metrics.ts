/** The metrics both micro-benchmarks compute over a run's records: Python's four with their p99. */
import type { RequestRecord } from '../../src/config/records.ts'
import { calculateMetrics } from '../../src/metrics/calculate.ts'

export function runMetrics(records: readonly RequestRecord[]): void {
  calculateMetrics(records, {
    durationS: 30,
    percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el'],
    metricPercentiles: [99],
    hasTokenizer: true,
    requestRateFinite: false,
  })
}
