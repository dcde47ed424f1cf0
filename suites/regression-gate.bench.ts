import { datasets, endpoint, load, serveBench } from 'servebench'
import { expect } from 'vitest'

// The baseline lives in suites/__baselines__/ (committed). Rerecord with `npm run bench -- -u`.
serveBench(
  'decode speed gate',
  {
    endpoint: endpoint({ backend: 'openai-chat' }),
    dataset: datasets.random({ inputLen: 128, outputLen: 32, numPrompts: 48 }),
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
