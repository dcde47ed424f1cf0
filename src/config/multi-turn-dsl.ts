import type { ConfigIssue } from '../errors.ts'
import type {
  BackendName,
  HfDatasetConfig,
  MultiTurnConfig,
  RandomDatasetConfig,
  ShareGptDatasetConfig,
} from './bench-config.ts'
import { defaultBenchConfig } from './defaults.ts'
import { type HfDatasetSpec, resolveHubDatasetSpec, type ShareGptDatasetSpec } from './hub-datasets-dsl.ts'

/**
 * Options of `datasets.multiTurn` (`--multi-turn`): synthetic conversations (`--dataset-name
 * random`), or real ones read from `source: datasets.sharegpt(...)` or `datasets.hf(...)`.
 */
export interface MultiTurnDatasetOptions {
  /**
   * Where the conversations come from: a ShareGPT file or an hf chat dataset (entries of 4+
   * messages; 2+ user turns kept). The lengths options and `prefix*Ratio` then do not apply, and
   * `maxTurns` caps the turns read (0 = no cap). @default synthetic conversations
   */
  source?: ShareGptDatasetSpec | HfDatasetSpec
  /** Prompt tokens of each conversation's first message. @default 1024 */
  inputLen?: number
  /** Prompt tokens of later messages (`--per-turn-input-len`); 0 = `inputLen`. @default 0 */
  perTurnInputLen?: number
  /** Output tokens asked per turn. @default 128 */
  outputLen?: number
  /** Conversations in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Turns per conversation. @default 3 */
  numTurns?: number
  /** Fewest turns; 0 = `numTurns`. @default 0 */
  minTurns?: number
  /** Most turns; 0 = `numTurns`. @default 0 */
  maxTurns?: number
  /** Think time between turns, ms; no concurrency slot is held. @default 0 */
  delayMs?: number
  /** Most turns in flight. @default the load's maxConcurrency, else numPrompts */
  concurrency?: number
  /** Share of each message common to every conversation; > 0 sends turns without history. @default 0 */
  prefixGlobalRatio?: number
  /** Share of each message common within a conversation; > 0 sends turns without history. @default 0 */
  prefixConversationRatio?: number
  /** Keep sending a conversation's turns after one fails. @default false */
  continueOnFailure?: boolean
}

/** A tagged multi-turn dataset, as `datasets.multiTurn()` returns it. @experimental */
export interface MultiTurnDatasetSpec extends MultiTurnDatasetOptions {
  readonly kind: 'multi-turn'
}

/** Validates `datasets.multiTurn()`; every issue's path starts at the benchmark. */
export function resolveMultiTurnSpec(
  spec: MultiTurnDatasetSpec,
  context: { issues: ConfigIssue[]; at: (path: string) => string; backend: BackendName },
): { dataset: RandomDatasetConfig | ShareGptDatasetConfig | HfDatasetConfig; multiTurn: MultiTurnConfig } {
  const { issues, at, backend } = context
  const dataset: RandomDatasetConfig = {
    ...(defaultBenchConfig().dataset as RandomDatasetConfig),
    kind: 'random',
    ...(spec.inputLen !== undefined ? { inputLen: spec.inputLen } : {}),
    ...(spec.outputLen !== undefined ? { outputLen: spec.outputLen } : {}),
  }
  const multiTurn: MultiTurnConfig = {
    numTurns: spec.numTurns ?? 3,
    minTurns: spec.minTurns ?? 0,
    maxTurns: spec.maxTurns ?? 0,
    perTurnInputLen: spec.perTurnInputLen ?? 0,
    ...(spec.concurrency !== undefined ? { concurrency: spec.concurrency } : {}),
    delayMs: spec.delayMs ?? 0,
    prefixGlobalRatio: spec.prefixGlobalRatio ?? 0,
    prefixConversationRatio: spec.prefixConversationRatio ?? 0,
    continueOnFailure: spec.continueOnFailure ?? false,
  }
  if (backend !== 'openai-chat') {
    issues.push({
      path: at('dataset'),
      message: `datasets.multiTurn() needs endpoint({ backend: 'openai-chat' }) (got '${backend}')`,
    })
  }
  const int = (name: string, value: number | undefined, min: number): void => {
    if (value !== undefined && !(Number.isInteger(value) && value >= min))
      issues.push({ path: at(`dataset.${name}`), message: `must be an integer >= ${min} (got ${value})` })
  }
  int('numTurns', spec.numTurns, 1)
  int('minTurns', spec.minTurns, 0)
  int('maxTurns', spec.maxTurns, 0)
  int('perTurnInputLen', spec.perTurnInputLen, 0)
  int('delayMs', spec.delayMs, 0)
  int('concurrency', spec.concurrency, 1)
  const min = multiTurn.minTurns || multiTurn.numTurns
  const max = multiTurn.maxTurns || multiTurn.numTurns
  if (spec.source === undefined && min > max) {
    issues.push({ path: at('dataset.minTurns'), message: `must be <= the most turns (got ${min} > ${max})` })
  }
  for (const name of ['prefixGlobalRatio', 'prefixConversationRatio'] as const) {
    const v = multiTurn[name]
    if (!(v >= 0 && v <= 1))
      issues.push({ path: at(`dataset.${name}`), message: `must be in [0, 1] (got ${v})` })
  }
  if (multiTurn.prefixGlobalRatio + multiTurn.prefixConversationRatio >= 1) {
    issues.push({
      path: at('dataset.prefixGlobalRatio'),
      message: 'plus prefixConversationRatio must be < 1',
    })
  }
  if (spec.source === undefined) return { dataset, multiTurn }
  const source = spec.source as { kind?: unknown }
  if (source === null || typeof source !== 'object' || (source.kind !== 'sharegpt' && source.kind !== 'hf')) {
    issues.push({ path: at('dataset.source'), message: 'must be datasets.sharegpt(...) or datasets.hf(...)' })
    return { dataset, multiTurn }
  }
  const underSource = (path: string): string => at(path.replace(/^dataset\./, 'dataset.source.'))
  if (spec.maxTurns === 1) {
    issues.push({
      path: at('dataset.maxTurns'),
      message: 'must be 0 (no cap) or at least 2 with a sharegpt or hf source (got 1)',
    })
  }
  if (multiTurn.prefixGlobalRatio > 0 || multiTurn.prefixConversationRatio > 0) {
    issues.push({
      path: at(
        multiTurn.prefixGlobalRatio > 0 ? 'dataset.prefixGlobalRatio' : 'dataset.prefixConversationRatio',
      ),
      message: 'needs synthetic conversations; a sharegpt or hf source carries its own text',
    })
  }
  return { dataset: resolveHubDatasetSpec(spec.source, issues, underSource), multiTurn }
}
