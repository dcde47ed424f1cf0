import { datasets, endpoint, serveBench } from 'servebench'
import { expect } from 'vitest'

// The path is relative to this project's root, which is not the working directory.
serveBench(
  'a relative dataset path',
  { dataset: datasets.custom({ path: 'data/prompts.jsonl', numPrompts: 3, outputLen: 4 }) },
  (r) => {
    expect(r.completed).toBe(3)
    expect(r.model_id).toBe('plugin-model')
  },
)

// No dataset: the seconds-long default workload, on the plugin's chat endpoint and model.
serveBench('the default workload', {}, (r) => {
  expect(r.completed).toBe(50)
  expect(r.total_input_tokens).toBe(50 * 256)
  expect(r.backend).toBe('openai-chat')
})

// A suite's own endpoint fields win over the plugin's.
serveBench(
  'a suite that names its model',
  {
    endpoint: endpoint({ model: 'suite-model' }),
    dataset: datasets.random({ inputLen: 8, outputLen: 2, numPrompts: 2 }),
  },
  (r) => expect(r.model_id).toBe('suite-model'),
)
