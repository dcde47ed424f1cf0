import { datasets, endpoint, load, serveBench } from 'servebench'
import { expect } from 'vitest'

// The baseline lives in suites/__baselines__/ (committed; 3 runs). Rerecord with `npm run bench -- -u`.
// 96 requests at concurrency 8 are 12 closed-loop waves: enough blocks for the comparison to
// resample whole waves (docs/statistics.md).
serveBench(
  'decode speed gate',
  {
    endpoint: endpoint({ backend: 'openai-chat' }),
    dataset: datasets.random({ inputLen: 128, outputLen: 32, numPrompts: 96 }),
    load: load.closed({ concurrency: 8 }),
    ignoreEos: true,
  },
  (result) => {
    expect(result).toMatchBaseline({
      metrics: ['mean_tpot_ms', 'median_e2el_ms', 'output_throughput'],
      tolerance: 0.2,
    })
  },
)
