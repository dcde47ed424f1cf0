import { describe, expect } from 'vitest'
import type { BackendName, BenchConfig } from '../../src/config/bench-config.ts'
import {
  DEFAULT_ENDPOINT_PATHS,
  DEFAULT_POOLING_PERCENTILE_METRICS,
  defaultBenchConfig,
} from '../../src/config/defaults.ts'
import { runBenchmark } from '../../src/runner/run-benchmark.ts'
import { test } from '../helpers.ts'
import { onQuietMachine } from './cpu-share.ts'

// Fixed simulator timing (helpers.ts): the first token 40 ms after the body was read, then one every 10 ms.
// Wall-clock bounds: the serial project runs alone, one file at a time, after the other projects; a
// machine busy with other work skips the bounds (cpu-share.ts).
const TTFT_MS = 40
const ITL_MS = 10

function configFor(backend: BackendName, baseUrl: string, pooling: boolean): BenchConfig {
  const config = defaultBenchConfig()
  config.endpoint = { ...config.endpoint, backend, baseUrl, endpointPath: DEFAULT_ENDPOINT_PATHS[backend] }
  config.tokenizer.id = 'cl100k_base'
  config.dataset.inputLen = 50
  config.dataset.outputLen = 8
  config.numPrompts = 12
  config.load.maxConcurrency = 4
  config.request.ignoreEos = !pooling
  if (pooling) config.percentileMetrics = [...DEFAULT_POOLING_PERCENTILE_METRICS]
  config.metricPercentiles = [50, 99]
  return config
}

describe('backends measure the simulator timings', () => {
  test('openai-embeddings: median E2EL within 40 ms of the simulated prefill', async ({ sim, skip }) => {
    const { result: run, busy } = await onQuietMachine(() =>
      runBenchmark(configFor('openai-embeddings', sim.url, true)),
    )
    const { result } = run
    expect(result.completed).toBe(12)
    if (busy) return skip(busy)
    expect(result.median_e2el_ms as number).toBeGreaterThanOrEqual(TTFT_MS)
    expect(result.median_e2el_ms as number).toBeLessThan(TTFT_MS + 40)
  })

  test('openai-responses: median ITL within a few ms of the simulated 10 ms', async ({ sim, skip }) => {
    const { result: run, busy } = await onQuietMachine(() =>
      runBenchmark(configFor('openai-responses', sim.url, false)),
    )
    const { result } = run
    expect(result.completed).toBe(12)
    if (busy) return skip(busy)
    expect(result.median_itl_ms as number).toBeGreaterThan(ITL_MS - 3)
    expect(result.median_itl_ms as number).toBeLessThan(ITL_MS + 5)
  })
})
