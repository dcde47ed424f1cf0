import { describe, expect, it } from 'vitest'
import {
  pytorchArgs,
  pytorchBenchmarkRecords,
  pytorchFormatRequested,
  pytorchPath,
} from './pytorch-format.ts'

describe('pytorchBenchmarkRecords', () => {
  it('tracks the E2EL of a pooling run without the per-request arrays (Python test vector)', () => {
    const records = pytorchBenchmarkRecords(
      {
        mean_e2el_ms: 12.0,
        median_e2el_ms: 11.0,
        std_e2el_ms: 2.0,
        p99_e2el_ms: 16.0,
        failed: 2,
        latencies: [0.01, 0.02],
        queue_times: [0.001, 0.002],
      },
      { args: { model: 'test-model' }, model: 'test-model' },
    )
    expect(Object.fromEntries(records.map((r) => [r.metric.name, r.metric.benchmark_values]))).toEqual({
      median_e2el_ms: [11.0],
      mean_e2el_ms: [12.0],
      std_e2el_ms: [2.0],
      p99_e2el_ms: [16.0],
    })
    expect(records.map((r) => r.metric.name)).toEqual([
      'median_e2el_ms',
      'mean_e2el_ms',
      'std_e2el_ms',
      'p99_e2el_ms',
    ])
    for (const record of records) expect(record.metric.extra_info).toEqual({ failed: 2 })
    expect(records[0]).toMatchObject({
      benchmark: { name: 'vLLM benchmark', extra_info: { args: { model: 'test-model' } } },
      model: { name: 'test-model' },
    })
  })

  it('copies a tensor_parallel_size metadata key into args when args has none', () => {
    const [record] = pytorchBenchmarkRecords(
      { mean_ttft_ms: 3, tensor_parallel_size: '2', server_ttfts: [0.1], response_metadata: [{}] },
      { args: {}, model: null },
    )
    expect(record!.benchmark.extra_info.args).toEqual({ tensor_parallel_size: '2' })
    expect(record!.metric.extra_info).toEqual({ tensor_parallel_size: '2' })
    expect(record!.model.name).toBeNull()
  })
})

describe('pytorchPath, pytorchArgs and the environment switch', () => {
  it("replaces the result's extension as os.path.splitext does", () => {
    expect(pytorchPath('out/openai-infqps-m-20260101-010203.json')).toBe(
      'out/openai-infqps-m-20260101-010203.pytorch.json',
    )
    expect(pytorchPath('run')).toBe('run.pytorch.json')
    expect(pytorchPath('dir.v2/.json')).toBe('dir.v2/.json.pytorch.json')
  })

  it('names each flag given as argparse does and redacts header values', () => {
    const flags = new Map<string, string | string[] | true>([
      ['--max-concurrency', '4'],
      ['--save-result', true],
      ['--header', ['Authorization=Bearer sk-1', 'X-Team=a']],
    ])
    expect(pytorchArgs(flags)).toEqual({
      max_concurrency: '4',
      save_result: true,
      header: ['Authorization=[redacted]', 'X-Team=[redacted]'],
    })
  })

  it('is on for any non-empty value, as Python tests the variable', () => {
    expect(pytorchFormatRequested({ SAVE_TO_PYTORCH_BENCHMARK_FORMAT: '1' })).toBe(true)
    expect(pytorchFormatRequested({ SAVE_TO_PYTORCH_BENCHMARK_FORMAT: '0' })).toBe(true)
    expect(pytorchFormatRequested({ SAVE_TO_PYTORCH_BENCHMARK_FORMAT: '' })).toBe(false)
    expect(pytorchFormatRequested({})).toBe(false)
  })
})
