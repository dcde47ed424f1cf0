import { describe, expect, it } from 'vitest'
import type { RequestRecord } from '../../config/records.ts'
import { calculatePoolingMetrics } from '../../metrics/calculate-pooling.ts'
import { buildPoolingResult, formatPoolingResultTable } from './pooling-result.ts'

function record(latencyS: number, promptLen: number, inputs: number, success = true): RequestRecord {
  return {
    success,
    error: success ? '' : 'HTTP 500 Internal Server Error',
    generatedText: '',
    promptLen,
    outputTokens: null,
    ttftS: latencyS,
    itlS: [],
    latencyS,
    startTimeS: 0,
    numInputSequences: inputs,
    requestId: 'r',
    outputLen: 0,
    arrivalTimeS: 0,
    queueTimeS: 0,
  }
}

// Hand-computed: successful latencies 0.1, 0.2, 0.3 s; 60 tokens and 6 inputs over 2 s.
const records = [record(0.1, 10, 1), record(0.2, 20, 2), record(0.3, 30, 3), record(9, 99, 9, false)]
const metrics = calculatePoolingMetrics(records, {
  durationS: 2,
  percentileMetrics: ['ttft', 'e2el'],
  metricPercentiles: [50, 99],
  requestRateFinite: false,
})
const result = buildPoolingResult(
  {
    date: '20260101-010203',
    backend: 'openai-embeddings',
    modelId: 'm',
    tokenizerId: 'm',
    numPrompts: 4,
    numWarmups: 0,
    metadata: [],
    requestRate: Number.POSITIVE_INFINITY,
    burstiness: 1,
  },
  metrics,
  records,
)

describe('pooling metrics and result', () => {
  it('counts successful requests only and has no TTFT statistics', () => {
    expect(metrics).toMatchObject({
      completed: 3,
      failed: 1,
      totalInputTokens: 60,
      totalInputSequences: 6,
      requestThroughput: 1.5,
      inputSequenceThroughput: 3,
      totalTokenThroughput: 30,
    })
    expect(metrics.statistics.map(([k]) => k)).toEqual([
      'mean_e2el_ms',
      'median_e2el_ms',
      'std_e2el_ms',
      'p50_e2el_ms',
      'p99_e2el_ms',
    ])
    expect(metrics.statistics[0]![1]).toBeCloseTo(200, 9)
    expect(metrics.statistics[4]![1]).toBeCloseTo(298, 9)
  })

  it('writes the pooling keys in Python order, with no failed key', () => {
    expect(Object.keys(result).slice(11)).toEqual([
      'duration',
      'completed',
      'total_input_tokens',
      'total_input_sequences',
      'request_throughput',
      'input_sequence_throughput',
      'total_token_throughput',
      'input_lens',
      'latencies',
      'queue_times',
      'errors',
      'mean_e2el_ms',
      'median_e2el_ms',
      'std_e2el_ms',
      'p50_e2el_ms',
      'p99_e2el_ms',
    ])
  })

  it('prints the pooling block with the input throughput row', () => {
    const text = formatPoolingResultTable(result, {
      percentileMetrics: ['e2el'],
      metricPercentiles: [50, 99],
      failed: 1,
    })
    expect(text.split('\n')).toEqual([
      '============ Serving Benchmark Result ============',
      'Successful requests:                     3         ',
      'Failed requests:                         1         ',
      'Benchmark duration (s):                  2.00      ',
      'Total input tokens:                      60        ',
      'Request throughput (req/s):              1.50      ',
      'Input throughput (inputs/s):             3.00      ',
      'Total token throughput (tok/s):          30.00     ',
      '----------------End-to-end Latency----------------',
      'Mean E2EL (ms):                          200.00    ',
      'Median E2EL (ms):                        200.00    ',
      'P50 E2EL (ms):                           200.00    ',
      'P99 E2EL (ms):                           298.00    ',
      '==================================================',
      '',
    ])
  })
})
