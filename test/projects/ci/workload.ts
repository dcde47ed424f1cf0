import { datasets, endpoint, load, type ServeBenchOptions } from 'servebench'

/** 8 chat requests, 16 prompt tokens, 8 output tokens, 4 in flight: about a second. */
export const small: ServeBenchOptions = {
  endpoint: endpoint({ backend: 'openai-chat', model: 'servebench/sim-model' }),
  dataset: datasets.random({ inputLen: 16, outputLen: 8, numPrompts: 8 }),
  load: load.closed({ concurrency: 4 }),
  ignoreEos: true,
}
