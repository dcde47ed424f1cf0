import type { ConfigIssue } from '../errors.ts'
import type { BackendName, RandomRerankDatasetConfig } from './bench-config.ts'
import { defaultBenchConfig } from './defaults.ts'

/** Options of `datasets.randomRerank` (`--dataset-name random-rerank`). */
export interface RandomRerankDatasetOptions {
  /** Tokens of query + document. @default 1024 */
  inputLen?: number
  /** Documents in the run (`--num-prompts`; with `noReranker`, documents + 1). @default 1000 */
  numPrompts?: number
  /** Length spread r in [0, 1). @default 0 */
  rangeRatio?: number
  /** Documents per request (with `noReranker`: query + documents). @default 1 */
  batchSize?: number
  /** An embedding model instead of a reranker: the query is one more input (`--no-reranker`). @default false */
  noReranker?: boolean
}

/** A tagged `random-rerank` dataset, as `datasets.randomRerank()` returns it. */
export interface RandomRerankDatasetSpec extends RandomRerankDatasetOptions {
  readonly kind: 'random-rerank'
}

/** Backends that take a query and a list of documents or inputs. */
const RERANK_BACKENDS: readonly BackendName[] = ['vllm-rerank', 'openai-embeddings', 'vllm-pooling']

/** Validates `datasets.randomRerank()` options; every issue's path starts at the benchmark. */
export function resolveRandomRerankSpec(
  spec: RandomRerankDatasetSpec,
  context: { issues: ConfigIssue[]; at: (path: string) => string; backend: BackendName },
): RandomRerankDatasetConfig {
  const { issues, at, backend } = context
  const base = defaultBenchConfig().dataset
  const ratio = spec.rangeRatio ?? 0
  const out: RandomRerankDatasetConfig = {
    kind: 'random-rerank',
    inputLen: spec.inputLen ?? base.inputLen,
    rangeRatio: { input: ratio, output: ratio },
    batchSize: spec.batchSize ?? 1,
    noReranker: spec.noReranker ?? false,
  }
  if (!RERANK_BACKENDS.includes(backend)) {
    issues.push({
      path: at('dataset'),
      message: `datasets.randomRerank() needs endpoint({ backend }) of ${RERANK_BACKENDS.join(', ')} (got '${backend}')`,
    })
  }
  if (!(Number.isInteger(out.inputLen) && out.inputLen >= 1))
    issues.push({ path: at('dataset.inputLen'), message: `must be an integer >= 1 (got ${out.inputLen})` })
  if (!(Number.isInteger(out.batchSize) && out.batchSize >= 1))
    issues.push({ path: at('dataset.batchSize'), message: `must be an integer >= 1 (got ${out.batchSize})` })
  if (!(typeof ratio === 'number' && ratio >= 0 && ratio < 1))
    issues.push({ path: at('dataset.rangeRatio'), message: `must be in [0, 1) (got ${ratio})` })
  if (out.noReranker && out.batchSize < 2) {
    issues.push({
      path: at('dataset.batchSize'),
      message: `must be at least 2 with noReranker: the query takes one input of each request (got ${out.batchSize})`,
    })
  }
  return out
}
