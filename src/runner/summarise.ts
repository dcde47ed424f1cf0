/**
 * The summarise stage: a measured run's records → its result (generation, pooling or multi-turn),
 * with Python's metrics, the run extras' keys and servebench's client keys. Synchronous and free of
 * I/O; `mergeRounds` calls {@link summariseRecords} again over the records of several rounds.
 * Python: benchmark + calculate_metrics (vllm/benchmarks/serve.py); Rust: multi_turn.rs for multi-turn.
 */
import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestRecord } from '../config/records.ts'
import { calculateMetrics } from '../metrics/calculate.ts'
import { calculatePoolingMetrics } from '../metrics/calculate-pooling.ts'
import type { ClientHealthSummary } from '../metrics/client-health.ts'
import { type IntendedFamily, intendedDelaysS, intendedStatistics } from '../metrics/intended.ts'
import { clientHealthJson, clientResultKeys } from '../report/result/client-keys.ts'
import { buildMultiTurnResult } from '../report/result/multi-turn.ts'
import { buildPoolingResult } from '../report/result/pooling-result.ts'
import { buildResult, formatDate } from '../report/result/result-json.ts'
import type { AnyBenchResult } from '../report/result/run-result.ts'
import { addServerKeys, cachedTokensWarning } from '../report/result/server-keys.ts'
import type { Measured } from './measure.ts'
import type { MeasuredConversations } from './measure-conversations.ts'
import type { PreparedRequests } from './prepare.ts'
import type { PreparedConversations } from './prepare-conversations.ts'
import { resultSetup } from './result-setup.ts'
import type { RunExtrasOutcome } from './run-extras.ts'
import type { RunOutcome } from './run-types.ts'

/** What the result of a run of independent requests is built from. */
export interface RequestsSummaryInput {
  config: BenchConfig
  /** Which result to build. */
  kind: 'generation' | 'pooling'
  /** `YYYYMMDD-HHMMSS`; see `formatDate`. */
  date: string
  modelId: string
  tokenizerId: string | null
  /** `server`: the server's /tokenize counted the tokens (written as `tokenizer_source`). */
  tokenizerSource?: 'server'
  /** TTFT and the token statistics need a tokenizer (none with `--skip-tokenizer-init`). */
  hasTokenizer: boolean
  /** Open loops get the latency from the intended send time. */
  openLoop: boolean
  numPrompts: number
  records: RequestRecord[]
  durationS: number
  /** Probe, `rps_change_events`, spec-decode and `steady_state` keys. */
  extras: RunExtrasOutcome
  clientHealth?: ClientHealthSummary
  interrupted: boolean
  retries: Measured['retries']
}

/** The outcome of a prepared and measured run of independent requests. */
export function summariseRequests(
  plan: PreparedRequests,
  measured: Measured,
  extras: RunExtrasOutcome,
): RunOutcome {
  if (plan.task === 'generation' && plan.config.output.reportCachedTokens) {
    const warning = cachedTokensWarning(measured.records)
    if (warning !== undefined) plan.log(warning)
  }
  const outcome = summariseRecords({
    config: plan.config,
    kind: plan.task,
    date: formatDate(new Date()),
    modelId: plan.modelId,
    tokenizerId: plan.tokenizerId,
    ...(plan.tokenizer?.kind === 'server' ? { tokenizerSource: 'server' as const } : {}),
    hasTokenizer: plan.tokenizer !== undefined,
    openLoop: plan.openLoop,
    numPrompts: plan.config.numPrompts,
    records: measured.records,
    durationS: measured.endS - measured.startS,
    extras,
    interrupted: measured.interrupted,
    retries: measured.retries,
    ...(measured.clientHealth ? { clientHealth: measured.clientHealth } : {}),
  })
  return {
    ...outcome,
    clock: measured.clock,
    ...(measured.scheduleIndexes ? { scheduleIndexes: measured.scheduleIndexes } : {}),
  }
}

/**
 * The generation or pooling result of a run's records, in Python's key order, then servebench's
 * keys (`steady_state`, the intended latency, `client_health`, `interrupted`).
 */
export function summariseRecords(input: RequestsSummaryInput): RunOutcome {
  const { config, records, extras } = input
  const setup = resultSetup(config, {
    date: input.date,
    modelId: input.modelId,
    tokenizerId: input.tokenizerId,
    numPrompts: input.numPrompts,
  })
  const shared = {
    durationS: input.durationS,
    percentileMetrics: config.percentileMetrics,
    metricPercentiles: config.metricPercentiles,
    ...(config.load.maxConcurrency ? { maxConcurrency: config.load.maxConcurrency } : {}),
    requestRateFinite: Number.isFinite(config.load.requestRate),
  }
  const base = {
    records,
    interrupted: input.interrupted,
    retries: input.retries,
    ...(input.clientHealth ? { clientHealth: input.clientHealth } : {}),
  }
  const clientKeys = (result: AnyBenchResult, families: IntendedFamily[]): void => {
    addServerKeys(result, records, {
      reportCachedTokens: input.kind === 'generation' && config.output.reportCachedTokens === true,
    })
    // Deviation: Python has no fallback; the result says when the server counted the tokens.
    if (input.tokenizerSource) result.tokenizer_source = input.tokenizerSource
    if (extras.steadyState !== undefined) result.steady_state = extras.steadyState
    addClientKeys(result, records, {
      openLoop: input.openLoop,
      families,
      config,
      clientHealth: input.clientHealth,
    })
    // Deviation: a servebench key, last in the result, written only when the run was interrupted.
    if (input.interrupted) result.interrupted = true
  }
  if (input.kind === 'pooling') {
    const result = buildPoolingResult(setup, calculatePoolingMetrics(records, shared), records, extras.extra)
    clientKeys(result, ['intended_e2el'])
    return { kind: 'pooling', result, ...base }
  }
  const metrics = calculateMetrics(records, {
    ...shared,
    ...(config.goodput ? { goodput: config.goodput } : {}),
    hasTokenizer: input.hasTokenizer,
  })
  const result = buildResult(setup, metrics, records, extras.extra)
  // As Python's TTFT statistics, none without a tokenizer (--skip-tokenizer-init).
  clientKeys(result, input.hasTokenizer ? ['intended_ttft', 'intended_e2el'] : ['intended_e2el'])
  return { kind: 'generation', result, ...base }
}

/** The outcome of a prepared and measured multi-turn run: Rust's keys, overall and per turn, then `client_health`. */
export function summariseConversations(
  plan: PreparedConversations,
  measured: MeasuredConversations,
  extras: RunExtrasOutcome,
): RunOutcome {
  const { config, multiTurn, conversations } = plan
  const durationS = measured.endS - measured.startS
  const metricsOf = (rs: readonly RequestRecord[]): ReturnType<typeof calculateMetrics> =>
    calculateMetrics(rs, {
      durationS,
      ...(config.goodput ? { goodput: config.goodput } : {}),
      percentileMetrics: config.percentileMetrics,
      metricPercentiles: config.metricPercentiles,
      hasTokenizer: true,
      requestRateFinite: Number.isFinite(config.load.requestRate),
    })
  const max = Math.max(...conversations.map((c) => c.turns.length))
  const perTurn = Array.from({ length: max }, (_, t) => {
    const rs = measured.turns.filter((r) => r.turnIndex === t).map((r) => r.record)
    return { turnIndex: t, records: rs, metrics: metricsOf(rs) }
  }).filter((t) => t.records.length > 0)
  const result = buildMultiTurnResult({
    date: formatDate(new Date()),
    backend: config.endpoint.backend,
    modelId: plan.modelId,
    numConversations: config.numPrompts,
    ...(config.maxModelLen !== undefined ? { maxModelLen: config.maxModelLen } : {}),
    turnsPerConversation: multiTurn.numTurns,
    concurrency: plan.concurrency,
    delayMs: multiTurn.delayMs,
    requestRate: config.load.requestRate,
    burstiness: config.load.burstiness,
    continueOnFailure: multiTurn.continueOnFailure,
    ...(plan.noHistory
      ? { prefix: { global: multiTurn.prefixGlobalRatio, conversation: multiTurn.prefixConversationRatio } }
      : {}),
    metadata: config.metadata,
    conversationTurns: conversations.map((c) => c.turns.length),
    conversationDurationsMs: measured.conversationDurationsMs,
    turns: measured.turns,
    overall: metricsOf(measured.records),
    perTurn,
    extra: extras.extra,
  })
  // Servebench's key, after the Rust keys (and before `interrupted`), as in single runs.
  const { clientHealth } = measured
  if (clientHealth) result.client_health = clientHealthJson(clientHealth)
  if (measured.interrupted) result.interrupted = true
  return {
    kind: 'multi-turn',
    result,
    records: measured.records,
    interrupted: measured.interrupted,
    retries: measured.retries,
    ...(clientHealth ? { clientHealth } : {}),
  }
}

/**
 * Servebench's client keys, after `steady_state`: latency from the intended send time (open loops),
 * `intended_delays`, and `client_health`.
 */
export function addClientKeys(
  result: AnyBenchResult,
  records: readonly RequestRecord[],
  options: {
    openLoop: boolean
    families: IntendedFamily[]
    config: BenchConfig
    clientHealth: ClientHealthSummary | undefined
  },
): void {
  const keys = clientResultKeys({
    ...(options.openLoop
      ? {
          intended: {
            statistics: intendedStatistics(records, {
              metricPercentiles: options.config.metricPercentiles,
              families: options.families,
            }),
            delaysS: intendedDelaysS(records),
          },
        }
      : {}),
    ...(options.clientHealth ? { clientHealth: options.clientHealth } : {}),
  })
  for (const [key, value] of keys) result[key] = value
}
