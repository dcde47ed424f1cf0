import type { ServeBenchResult } from '../shared/meta.ts'
import type { LatencyMetric } from './samples.ts'

/** An interval of a statistic of this run, and the requests that would narrow it to a decision. */
export interface SampleBound {
  interval: [number, number]
  neededRequests?: number
}

/** The mean of a latency metric with a block-bootstrap interval (requests grouped by start time). */
export function meanBound(
  _result: ServeBenchResult,
  _metric: LatencyMetric,
  _confidence: number,
): SampleBound | undefined {
  return undefined
}

/** A throughput with the interval of its windowed rates over the run's steady part. */
export function throughputBound(
  _result: ServeBenchResult,
  _key: string,
  _confidence: number,
): SampleBound | undefined {
  return undefined
}
