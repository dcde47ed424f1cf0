import type { BenchConfig } from '../config/bench-config.ts'
import type { ResultSetup } from '../report/result/result-json.ts'

/** What a run found out that its result's setup keys need besides the configuration. */
export interface RunFacts {
  date: string
  modelId: string
  tokenizerId: string | null
  numPrompts: number
}

/** The setup keys of a result (Python's order and names are `report/result/result-json.ts`'s concern). */
export function resultSetup(config: BenchConfig, facts: RunFacts): ResultSetup {
  return {
    date: facts.date,
    backend: config.endpoint.backend,
    ...(config.label !== undefined ? { label: config.label } : {}),
    modelId: facts.modelId,
    tokenizerId: facts.tokenizerId,
    numPrompts: facts.numPrompts,
    numWarmups: config.numWarmups,
    metadata: config.metadata,
    requestRate: config.load.requestRate,
    burstiness: config.load.burstiness,
    ...(config.load.maxConcurrency ? { maxConcurrency: config.load.maxConcurrency } : {}),
    ...(config.load.rampUp ? { rampUp: config.load.rampUp } : {}),
  }
}
