import { describe, expect, it } from 'vitest'
import { paretoFrontier, paretoPoints } from './pareto.ts'

describe('the Pareto frontier of a sweep (vllm/benchmarks/sweep/plot_pareto.py)', () => {
  it('divides output throughput by the user count and by the GPU count', () => {
    const { points, skipped } = paretoPoints([
      { output_throughput: 800, max_concurrency: 8, tensor_parallel_size: 2, pipeline_parallel_size: 2 },
      { output_throughput: 90, max_concurrency: null, max_concurrent_requests: 3 },
      { output_throughput: 50, request_rate: 'inf', max_concurrent_requests: 0 },
      { output_throughput: 10, max_concurrent_requests: 0 },
    ])
    expect(points.map((p) => [p.tokensPerUser, p.tokensPerGpu])).toEqual([
      [100, 200],
      [30, 90],
      [0, 50],
    ])
    // The last has no user count at all (a zero count is none).
    expect(skipped).toBe(1)
  })

  it('prefers --gpu-count-var and --user-count-var when the run has them', () => {
    const { points } = paretoPoints([{ output_throughput: 60, users: 6, gpus: 3, max_concurrency: 1 }], {
      userCountVar: 'users',
      gpuCountVar: 'gpus',
    })
    expect(points[0]).toMatchObject({ tokensPerUser: 10, tokensPerGpu: 20, userCount: 6, gpuCount: 3 })
  })

  it('keeps the points no other beats on both axes, in order of tokens per user', () => {
    const at = (tokensPerUser: number, tokensPerGpu: number, index: number) => ({
      tokensPerUser,
      tokensPerGpu,
      userCount: 1,
      gpuCount: 1,
      index,
    })
    const frontier = paretoFrontier([
      at(10, 100, 0),
      at(20, 80, 1),
      at(15, 70, 2),
      at(5, 90, 3),
      at(30, 20, 4),
    ])
    expect(frontier.map((p) => p.index)).toEqual([0, 1, 4])
  })

  it('names the run data when output_throughput is missing', () => {
    expect(() => paretoPoints([{ max_concurrency: 2 }])).toThrow(
      "Cannot find throughput metric 'output_throughput' in run data. Available keys: max_concurrency",
    )
  })
})
