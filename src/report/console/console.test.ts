import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { BenchResult } from '../result/result-types.ts'
import { center, formatFailedRequests, formatResultTable } from './console.ts'

const summary = JSON.parse(
  readFileSync(new URL('../../../fixtures/results/python-summary.json', import.meta.url), 'utf8'),
) as BenchResult

// Written by hand from the print statements of benchmark (vllm/benchmarks/serve.py): '{:<40} {:<10}' rows keep their trailing spaces.
const FULL_BLOCK = [
  '============ Serving Benchmark Result ============',
  'Successful requests:                     3         ',
  'Failed requests:                         1         ',
  'Maximum request concurrency:             2         ',
  'Request rate configured (RPS):           10.00     ',
  'Benchmark duration (s):                  2.50      ',
  'Total input tokens:                      90        ',
  'Total generated tokens:                  8         ',
  'Request throughput (req/s):              1.20      ',
  'Request goodput (req/s):                 0.40      ',
  'Output token throughput (tok/s):         3.20      ',
  'Peak output token throughput (tok/s):    6.00      ',
  'Peak concurrent requests:                1.00      ',
  'Total token throughput (tok/s):          39.20     ',
  '---------------Time to First Token----------------',
  'Mean TTFT (ms):                          110.00    ',
  'Median TTFT (ms):                        80.00     ',
  'P50 TTFT (ms):                           80.00     ',
  'P99 TTFT (ms):                           197.60    ',
  'P99.9 TTFT (ms):                         199.76    ',
  '-----Time per Output Token (excl. 1st token)------',
  'Mean TPOT (ms):                          135.50    ',
  'Median TPOT (ms):                        135.50    ',
  'P50 TPOT (ms):                           135.50    ',
  'P99 TPOT (ms):                           257.51    ',
  'P99.9 TPOT (ms):                         259.75    ',
  '---------------Inter-token Latency----------------',
  'Mean ITL (ms):                           110.60    ',
  'Median ITL (ms):                         12.00     ',
  'P50 ITL (ms):                            12.00     ',
  'P99 ITL (ms):                            480.80    ',
  'P99.9 ITL (ms):                          498.08    ',
  '----------------End-to-end Latency----------------',
  'Mean E2EL (ms):                          294.33    ',
  'Median E2EL (ms):                        200.00    ',
  'P50 E2EL (ms):                           200.00    ',
  'P99 E2EL (ms):                           592.00    ',
  'P99.9 E2EL (ms):                         599.20    ',
  '---------------Client-side Queueing---------------',
  'Mean Client Queue Time (ms):             116.67    ',
  'Median Client Queue Time (ms):           100.00    ',
  'P50 Client Queue Time (ms):              100.00    ',
  'P99 Client Queue Time (ms):              247.00    ',
  'P99.9 Client Queue Time (ms):            249.70    ',
  '--------Queue-inclusive End-to-end Latency--------',
  'Mean E2EL incl. Client Queue (ms):       411.00    ',
  'Median E2EL incl. Client Queue (ms):     450.00    ',
  'P50 E2EL incl. Client Queue (ms):        450.00    ',
  'P99 E2EL incl. Client Queue (ms):        695.00    ',
  'P99.9 E2EL incl. Client Queue (ms):      699.50    ',
  '==================================================',
  '',
].join('\n')

const ALL = ['ttft', 'tpot', 'itl', 'e2el', 'client_queue_time', 'e2el_including_client_queue'] as const

describe('formatResultTable', () => {
  it('prints the Python block character for character, trailing spaces included', () => {
    const text = formatResultTable(summary, {
      percentileMetrics: [...ALL],
      metricPercentiles: [50, 99, 99.9],
      hasTokenizer: true,
      goodputSet: true,
    })
    expect(text).toBe(FULL_BLOCK)
  })

  it('leaves out concurrency, rate and goodput rows when unset, and unselected sections', () => {
    const result = {
      ...summary,
      request_rate: 'inf',
      max_concurrency: null,
      request_goodput: null,
      max_concurrent_requests: 200,
      duration: 0.125,
    } as BenchResult
    const text = formatResultTable(result, {
      percentileMetrics: ['ttft'],
      metricPercentiles: [99],
      hasTokenizer: true,
      goodputSet: false,
    })
    expect(text).toBe(
      [
        '============ Serving Benchmark Result ============',
        'Successful requests:                     3         ',
        'Failed requests:                         1         ',
        // 0.125 is an exact tie: Python rounds it to even.
        'Benchmark duration (s):                  0.12      ',
        'Total input tokens:                      90        ',
        'Total generated tokens:                  8         ',
        'Request throughput (req/s):              1.20      ',
        'Output token throughput (tok/s):         3.20      ',
        'Peak output token throughput (tok/s):    6.00      ',
        'Peak concurrent requests:                200.00    ',
        'Total token throughput (tok/s):          39.20     ',
        '---------------Time to First Token----------------',
        'Mean TTFT (ms):                          110.00    ',
        'Median TTFT (ms):                        80.00     ',
        'P99 TTFT (ms):                           197.60    ',
        '==================================================',
        '',
      ].join('\n'),
    )
  })

  it('drops token rows and the ttft/tpot/itl sections without a tokenizer', () => {
    const text = formatResultTable(summary, {
      percentileMetrics: ['ttft', 'e2el'],
      metricPercentiles: [99],
      hasTokenizer: false,
      goodputSet: false,
    })
    expect(text).not.toContain('Total generated tokens:')
    expect(text).not.toContain('Output token throughput')
    expect(text).not.toContain('Time to First Token')
    expect(text).toContain('----------------End-to-end Latency----------------\nMean E2EL (ms):')
    expect(text).toContain('Peak concurrent requests:                1.00      \n')
  })
})

describe('formatFailedRequests', () => {
  it('lists at most 10 failures, numbered from 0, skipping successful requests', () => {
    const errors = ['', 'boom', '', ...Array.from({ length: 12 }, (_, i) => `e${i}`)]
    const lines = formatFailedRequests(errors).split('\n')
    expect(lines[0]).toBe('Failed requests during benchmark run detected (capping to 10):')
    expect(lines[1]).toBe('Error 0: boom')
    expect(lines.at(-1)).toBe('Error 9: e8')
    expect(lines).toHaveLength(11)
  })

  it('prints nothing when no request failed', () => {
    expect(formatFailedRequests(['', ''])).toBe('')
  })
})

describe('center', () => {
  it('puts the odd fill character on the right, as Python ^ does', () => {
    expect(center('abc', '-', 10)).toBe('---abc----')
  })
})

describe('formatResultTable optional sections', () => {
  it('prints probe rows before the statistics and spec-decode rows after them, as Python does', () => {
    const result = {
      ...summary,
      probe_completed: 5,
      probe_failed: 0,
      probe_median_e2el_ms: 12.5,
      probe_p99_e2el_ms: 20.25,
      probe_max_e2el_ms: 21,
      spec_decode_acceptance_rate: 62.5,
      spec_decode_acceptance_length: 2.875,
      spec_decode_num_drafts: 8,
      spec_decode_draft_tokens: 24,
      spec_decode_accepted_tokens: 15,
      spec_decode_per_position_acceptance_rates: [0.875, 0.5],
    } as BenchResult
    const text = formatResultTable(result, {
      percentileMetrics: ['e2el'],
      metricPercentiles: [99],
      hasTokenizer: true,
      goodputSet: false,
    })
    const tail = text.slice(text.indexOf('------------------Probe Requests'))
    expect(tail).toBe(
      [
        '------------------Probe Requests------------------',
        'Probe requests completed:                5         ',
        'Probe requests failed:                   0         ',
        'Median probe E2EL (ms):                  12.50     ',
        'P99 probe E2EL (ms):                     20.25     ',
        'Max probe E2EL (ms):                     21.00     ',
        '----------------End-to-end Latency----------------',
        'Mean E2EL (ms):                          294.33    ',
        'Median E2EL (ms):                        200.00    ',
        'P99 E2EL (ms):                           592.00    ',
        '---------------Speculative Decoding---------------',
        'Acceptance rate (%):                     62.50     ',
        'Acceptance length:                       2.88      ',
        'Drafts:                                  8         ',
        'Draft tokens:                            24        ',
        'Accepted tokens:                         15        ',
        'Per-position acceptance (%):',
        '  Position 0:                            87.50     ',
        '  Position 1:                            50.00     ',
        '==================================================',
        '',
      ].join('\n'),
    )
  })
})
