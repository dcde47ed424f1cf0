import { describe, expect, it } from 'vitest'
import type { SummaryBenchmark } from './run-summary.ts'
import { consoleLine } from './summary-console.ts'

const bench = (metrics: SummaryBenchmark['metrics']): SummaryBenchmark => ({
  file: 'embed.bench.ts',
  name: 'embeddings',
  state: 'passed',
  verdict: 'pass',
  durationMs: 10,
  fingerprint: '0123456789abcdef',
  resultFile: null,
  metrics,
  verdicts: [],
  errors: [],
})

describe('consoleLine', () => {
  it('gives a pooling run its end-to-end latency instead of token figures', () => {
    const line = consoleLine(
      bench({
        completed: 40,
        failed: 2,
        duration_s: 1,
        request_throughput: 39.5,
        output_throughput: null,
        mean_ttft_ms: null,
        p99_ttft_ms: null,
        mean_tpot_ms: null,
        mean_itl_ms: null,
        mean_e2el_ms: 12.34,
        p99_e2el_ms: 20.5,
      }),
    )
    expect(line).toBe(
      'servebench ✓ embed.bench.ts › embeddings  40 ok, 2 failed · 39.50 req/s · E2EL 12.3/20.5 ms mean/p99',
    )
  })

  it('keeps the token figures of a generation run', () => {
    const line = consoleLine(
      bench({
        completed: 4,
        failed: 0,
        duration_s: 1,
        request_throughput: 4,
        output_throughput: 64,
        mean_ttft_ms: 20,
        p99_ttft_ms: 25,
        mean_tpot_ms: 5,
        mean_itl_ms: 5,
      }),
    )
    expect(line).toBe(
      'servebench ✓ embed.bench.ts › embeddings  4 ok · 4.00 req/s · 64.0 tok/s · TTFT 20.0/25.0 ms mean/p99 · TPOT 5.00 ms',
    )
  })
})
