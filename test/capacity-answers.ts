import type { CapacityAnswer, CapacitySlo } from '../src/capacity/capacity-result.ts'

/** The example answer: 14.2 req/s (13.1–15.0), bound by p99 TTFT ≤ 500 ms. */
export const EXAMPLE_ANSWER: CapacityAnswer = {
  value: 14.2,
  lower: 13.1,
  upper: 15,
  vary: 'request-rate',
  unit: 'req/s',
  binding_slo: 'p99_ttft_ms:500',
  confidence: 0.95,
}

export const EXAMPLE_SLOS: CapacitySlo[] = [{ metric: 'p99_ttft_ms', bound: 500, kind: 'max' }]
