import type { BackendName } from '../config/bench-config.ts'
import { audioBackend } from './audio.ts'
import { chatBackend } from './chat.ts'
import { createCompletionsBackend } from './completions.ts'
import { embeddingsBackend, embeddingsChatBackend } from './embeddings.ts'
import {
  embeddingsClipBackend,
  embeddingsVlm2vecBackend,
  infinityEmbeddingsBackend,
  infinityEmbeddingsClipBackend,
} from './embeddings-multimodal.ts'
import { poolingBackend } from './pooling.ts'
import { rerankBackend } from './rerank.ts'
import { responsesBackend } from './responses.ts'
import type { Backend } from './types.ts'

export type { Backend, BackendRequest, BackendTask } from './types.ts'

/** CLI `--backend` name → implementation (Rust: `get_backend(kind)`). */
export const BACKENDS: { readonly [K in BackendName]: Backend } = {
  vllm: createCompletionsBackend('vllm'),
  openai: createCompletionsBackend('openai'),
  'openai-chat': chatBackend,
  'openai-responses': responsesBackend,
  'openai-audio': audioBackend,
  'openai-embeddings': embeddingsBackend,
  'openai-embeddings-chat': embeddingsChatBackend,
  'openai-embeddings-clip': embeddingsClipBackend,
  'openai-embeddings-vlm2vec': embeddingsVlm2vecBackend,
  'infinity-embeddings': infinityEmbeddingsBackend,
  'infinity-embeddings-clip': infinityEmbeddingsClipBackend,
  'vllm-pooling': poolingBackend,
  'vllm-rerank': rerankBackend,
}

/** The backend for a `--backend` name. */
export function getBackend(name: BackendName): Backend {
  const backend = BACKENDS[name]
  if (backend === undefined) {
    throw new TypeError(
      `Unknown backend "${String(name)}". This is a bug in servebench: names are validated earlier.`,
    )
  }
  return backend
}
