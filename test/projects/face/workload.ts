import { datasets, endpoint, type ServeBenchOptions } from 'servebench'

/** Six completions of 16 prompt tokens and 8 output tokens, 2 in flight. */
export const small: ServeBenchOptions = {
  endpoint: endpoint({ model: 'servebench/sim-model' }),
  dataset: datasets.random({ inputLen: 16, outputLen: 8, numPrompts: 6 }),
  load: { kind: 'closed', concurrency: 2 },
}
