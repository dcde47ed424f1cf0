import { datasets, endpoint, load, serveBench } from 'servebench'

// Same as: servebench serve --backend openai-chat --endpoint /v1/chat/completions
//   --model servebench/sim-model --tokenizer cl100k_base --dataset-name random --random-input-len 128
//   --random-output-len 32 --num-prompts 200 --max-concurrency 16
serveBench('overhead workload', {
  endpoint: endpoint({ backend: 'openai-chat', model: 'servebench/sim-model', tokenizer: 'cl100k_base' }),
  dataset: datasets.random({ inputLen: 128, outputLen: 32, numPrompts: 200 }),
  load: load.closed({ concurrency: 16 }),
  ignoreEos: true,
})
