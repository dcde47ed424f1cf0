import { describe, expect, it } from 'vitest'
import { applyBinners, applyFilters, convertInfNan, parseBinners, parseFilters } from './plot-filters.ts'

const RUNS = [
  { max_concurrency: 1, backend: 'vllm', request_throughput: 1.7 },
  { max_concurrency: 8, backend: 'openai', request_throughput: 9.2 },
  { max_concurrency: 1000, backend: 'vllm', request_throughput: 30.9 },
]

describe('--filter-by and --bin-by (vllm/benchmarks/sweep/plot.py)', () => {
  it('reads the longer operator first and strips quotes from the target', () => {
    expect(parseFilters("max_concurrency<=8,backend=='vllm'")).toEqual([
      { variable: 'max_concurrency', op: '<=', target: '8' },
      { variable: 'backend', op: '==', target: 'vllm' },
    ])
  })

  it('keeps the runs every statement holds for, comparing numbers or strings as pandas does', () => {
    expect(applyFilters(RUNS, parseFilters('max_concurrency<1000')).map((r) => r.max_concurrency)).toEqual([
      1, 8,
    ])
    expect(applyFilters(RUNS, parseFilters('backend==vllm,max_concurrency>1'))).toEqual([RUNS[2]])
    expect(applyFilters(RUNS, parseFilters('max_concurrency!=8')).length).toBe(2)
  })

  it('floors binned values to their bin', () => {
    expect(applyBinners(RUNS, parseBinners('request_throughput%5')).map((r) => r.request_throughput)).toEqual(
      [0, 5, 30],
    )
  })

  it('names a statement without an operator and a bad bin', () => {
    expect(() => parseFilters('max_concurrency')).toThrow(
      '--filter-by has no operator in "max_concurrency"; valid operators: != < <= == > >=',
    )
    expect(() => parseBinners('x%0')).toThrow(
      '--bin-by must be VARIABLE%BIN_SIZE with a bin size above 0 (got "x%0")',
    )
  })

  it('reads the strings inf and nan as numbers', () => {
    expect(convertInfNan({ request_rate: 'inf', a: 'x' })).toEqual({
      request_rate: Number.POSITIVE_INFINITY,
      a: 'x',
    })
  })
})
