import { datasets, endpoint, serveBench } from 'servebench'

// Port 9 on loopback: nothing listens there.
serveBench('nobody home', {
  endpoint: endpoint({ baseUrl: 'http://127.0.0.1:9', model: 'm', tokenizer: 'cl100k_base' }),
  dataset: datasets.random({ inputLen: 8, outputLen: 4, numPrompts: 3 }),
})
