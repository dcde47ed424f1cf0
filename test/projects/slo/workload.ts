import { datasets, endpoint, load, type ServeBenchOptions } from 'servebench'

/** A fixed tiny workload: 24 chat requests, 32 prompt tokens, 16 output tokens, 4 in flight. */
export const tiny: ServeBenchOptions = {
  endpoint: endpoint({ backend: 'openai-chat', model: 'servebench/sim-model' }),
  dataset: datasets.random({ inputLen: 32, outputLen: 16, numPrompts: 24 }),
  load: load.closed({ concurrency: 4 }),
  ignoreEos: true,
  goodput: { ttft: 500 },
}
