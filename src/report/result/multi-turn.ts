/**
 * The multi-turn result (the Rust port's keys, multi_turn.rs, with Python's per-request arrays kept in memory) and its
 * console block (Rust print_multi_turn_results). Pure.
 */
import type { PercentileMetric } from '../../config/bench-config.ts'
import { PERCENTILE_METRICS } from '../../config/bench-config.ts'
import type { RequestRecord } from '../../config/records.ts'
import type { BenchmarkMetrics } from '../../metrics/calculate.ts'
import { percentileWord } from '../../metrics/calculate.ts'
import { mean } from '../../metrics/percentile.ts'
import { pyFixed } from '../../metrics/py-number.ts'
import { center } from '../console/console.ts'
import { type ExtraResultKeys, requestArrays } from './result-json.ts'
import type { RequestArrays } from './result-types.ts'

/** One sent turn, with the conversation it belongs to. */
export interface TurnRecord {
  conversationId: string
  conversationIndex: number
  turnIndex: number
  record: RequestRecord
}

export interface MultiTurnSetup {
  date: string
  backend: string
  modelId: string
  numConversations: number
  /** `--max-model-len`; undefined is written as null. */
  maxModelLen?: number
  turnsPerConversation: number
  concurrency: number
  delayMs: number
  /** Conversation start rate (servebench); `Infinity` starts them all at once. */
  requestRate: number
  burstiness: number
  continueOnFailure: boolean
  /** Set in no-history mode (prefix sharing). */
  prefix?: { global: number; conversation: number }
  metadata: Array<[string, string]>
  /** Turns planned per conversation. */
  conversationTurns: number[]
  /** Wall time of each conversation, think time included. */
  conversationDurationsMs: number[]
  /** Every sent turn, by conversation then turn. */
  turns: TurnRecord[]
  overall: BenchmarkMetrics
  perTurn: Array<{ turnIndex: number; records: RequestRecord[]; metrics: BenchmarkMetrics }>
  /** Spec-decode (and probe) keys. */
  extra: ExtraResultKeys
}

/** The throughput keys of a run or of one turn index. */
interface Throughputs {
  total_input_tokens: number
  total_output_tokens: number
  request_throughput: number
  input_throughput: number
  output_throughput: number
  total_token_throughput: number
}

function throughputs(m: BenchmarkMetrics): Throughputs {
  return {
    total_input_tokens: m.totalInputTokens,
    total_output_tokens: m.totalOutputTokens,
    request_throughput: m.requestThroughput,
    input_throughput: m.totalInputTokens / m.durationS,
    output_throughput: m.outputThroughput,
    total_token_throughput: m.totalTokenThroughput,
  }
}

/** One failed turn, as `failed_requests` lists it. */
export interface FailedTurnJson {
  conversation_id: string
  turn_index: number
  error: string
  prompt_len: number
  start_time: number
  latency: number
  ttft: number
  output_tokens: number
  itl: number[]
}

/** The metrics of one turn index (`per_turn_metrics`), then its statistics keys (`mean_ttft_ms`, …). */
export interface PerTurnMetricsJson extends Throughputs {
  turn_index: number
  num_samples: number
  completed: number
  failed: number
  [statistic: string]: number
}

/**
 * The result of a `--multi-turn` run: the Rust port's keys (multi_turn.rs), servebench's start-rate keys, the
 * `--metadata` keys, the statistics keys (`mean_ttft_ms`, …) and the extras' keys, with Python's
 * per-request arrays kept in memory (written only with `--save-detailed`).
 */
export interface MultiTurnBenchResult extends Throughputs, RequestArrays {
  date: string
  mode: 'multi_turn'
  backend: string
  model_id: string
  num_conversations: number
  max_model_len: number | null
  turns_per_conversation: number
  multi_turn_concurrency: number
  inter_turn_delay_ms: number
  request_rate: number | 'inf'
  burstiness: number
  continue_on_failure: boolean
  /** The prefix tiers, in no-history mode only. */
  prefix_global_ratio?: number
  prefix_conversation_ratio?: number
  prefix_unique_ratio?: number
  no_history_accumulation?: true
  duration: number
  conversations_completed: number
  conversations_failed: number
  avg_turns_completed: number
  avg_conversation_duration_ms: number
  completed: number
  failed: number
  /** Written when a turn failed. */
  failed_requests?: FailedTurnJson[]
  per_turn_metrics: PerTurnMetricsJson[]
  /** servebench's self-check, after the Rust keys. */
  client_health?: Record<string, unknown>
  /** servebench: `true`, last, only when the run was stopped. */
  interrupted?: true
  /** Keys of a generation result that a multi-turn result never has (its file name reads them). */
  label?: never
  max_concurrency?: never
  ramp_up_strategy?: never
  ramp_up_start_rps?: never
  ramp_up_end_rps?: never
  /** `--metadata`, statistics and extras keys. */
  [key: string]: unknown
}

/** The multi-turn result object, keys in the Rust port's order (multi_turn.rs) plus servebench's start-rate keys. */
export function buildMultiTurnResult(setup: MultiTurnSetup): MultiTurnBenchResult {
  const m = setup.overall
  const recorded = setup.conversationTurns.map((_, c) => setup.turns.filter((t) => t.conversationIndex === c))
  const completedConversations = recorded.filter(
    (turns, c) => turns.length === setup.conversationTurns[c] && turns.every((t) => t.record.success),
  ).length
  const failed = setup.turns.filter((t) => !t.record.success)
  // A key a later one repeats (a --metadata key) keeps its place and takes the later value.
  return {
    date: setup.date,
    mode: 'multi_turn',
    backend: setup.backend,
    model_id: setup.modelId,
    num_conversations: setup.numConversations,
    max_model_len: setup.maxModelLen ?? null,
    turns_per_conversation: setup.turnsPerConversation,
    multi_turn_concurrency: setup.concurrency,
    inter_turn_delay_ms: setup.delayMs,
    request_rate: Number.isFinite(setup.requestRate) ? setup.requestRate : 'inf',
    burstiness: setup.burstiness,
    continue_on_failure: setup.continueOnFailure,
    ...(setup.prefix
      ? {
          prefix_global_ratio: setup.prefix.global,
          prefix_conversation_ratio: setup.prefix.conversation,
          prefix_unique_ratio: Math.max(0, 1 - setup.prefix.global - setup.prefix.conversation),
          no_history_accumulation: true as const,
        }
      : {}),
    ...Object.fromEntries(setup.metadata),
    duration: m.durationS,
    conversations_completed: completedConversations,
    conversations_failed: setup.conversationTurns.length - completedConversations,
    avg_turns_completed: mean(recorded.map((turns) => turns.length)),
    avg_conversation_duration_ms: mean(setup.conversationDurationsMs),
    completed: m.completed,
    failed: m.failed,
    ...(failed.length > 0 ? { failed_requests: failed.map(failedTurnJson) } : {}),
    ...throughputs(m),
    ...Object.fromEntries(m.statistics),
    ...Object.fromEntries(setup.extra),
    per_turn_metrics: setup.perTurn.map(({ turnIndex, records, metrics }) => ({
      turn_index: turnIndex,
      num_samples: records.length,
      completed: metrics.completed,
      failed: metrics.failed,
      ...throughputs(metrics),
      ...Object.fromEntries(metrics.statistics),
    })),
    // Kept in memory for assertions; the writer drops them unless --save-detailed.
    ...requestArrays(setup.turns.map((t) => t.record)),
  }
}

function failedTurnJson(t: TurnRecord): FailedTurnJson {
  return {
    conversation_id: t.conversationId,
    turn_index: t.turnIndex,
    error: t.record.error,
    prompt_len: t.record.promptLen,
    start_time: t.record.startTimeS,
    latency: t.record.latencyS,
    ttft: t.record.ttftS,
    output_tokens: t.record.outputLen,
    itl: [...t.record.itlS],
  }
}

const SECTIONS: Partial<Record<PercentileMetric, { name: string; header: string }>> = {
  ttft: { name: 'TTFT', header: 'Time to First Token' },
  tpot: { name: 'TPOT', header: 'Time per Output Token (excl. 1st token)' },
  itl: { name: 'ITL', header: 'Inter-token Latency' },
  e2el: { name: 'E2EL', header: 'End-to-end Latency' },
}

const n = (o: Record<string, unknown>, key: string): number =>
  typeof o[key] === 'number' ? (o[key] as number) : 0

function block(o: Record<string, unknown>, percentiles: readonly number[]): string[] {
  const row = (label: string, value: string): string => `${label.padEnd(45)} ${value.padEnd(10)}`
  const lines = [
    row('Successful requests:', String(n(o, 'completed'))),
    row('Failed requests:', String(n(o, 'failed'))),
    row('Total input tokens:', String(n(o, 'total_input_tokens'))),
    row('Total generated tokens:', String(n(o, 'total_output_tokens'))),
    row('Request throughput (req/s):', pyFixed(n(o, 'request_throughput'), 2)),
    row('Input token throughput (tok/s):', pyFixed(n(o, 'input_throughput'), 2)),
    row('Output token throughput (tok/s):', pyFixed(n(o, 'output_throughput'), 2)),
    row('Total token throughput (tok/s):', pyFixed(n(o, 'total_token_throughput'), 2)),
  ]
  const stat = (label: string, value: number): string => `${label.padEnd(40)} ${pyFixed(value, 2).padEnd(10)}`
  for (const family of PERCENTILE_METRICS) {
    const section = SECTIONS[family]
    if (!section || !(`mean_${family}_ms` in o)) continue
    lines.push(center(section.header, '-', 60))
    lines.push(stat(`Mean ${section.name} (ms):`, n(o, `mean_${family}_ms`)))
    lines.push(stat(`Median ${section.name} (ms):`, n(o, `median_${family}_ms`)))
    for (const p of percentiles) {
      const w = percentileWord(p)
      lines.push(stat(`P${w} ${section.name} (ms):`, n(o, `p${w}_${family}_ms`)))
    }
  }
  return lines
}

/** The `Multi-Turn Benchmark Result` block. */
export function formatMultiTurnTable(result: MultiTurnBenchResult, percentiles: readonly number[]): string {
  const r: Record<string, unknown> = result
  const row = (label: string, value: string): string => `${label.padEnd(45)} ${value}`
  const lines = [center(' Multi-Turn Benchmark Result ', '=', 60)]
  const total = n(r, 'conversations_completed') + n(r, 'conversations_failed')
  lines.push(row('Conversations completed/total:', `${n(r, 'conversations_completed')}/${total}`))
  lines.push(row('Turns per conversation (configured):', String(n(r, 'turns_per_conversation'))))
  lines.push(row('Avg turns completed:', pyFixed(n(r, 'avg_turns_completed'), 1)))
  lines.push(row('Avg conversation duration (ms):', pyFixed(n(r, 'avg_conversation_duration_ms'), 0)))
  lines.push(row('Concurrency:', String(n(r, 'multi_turn_concurrency'))))
  lines.push(row('Inter-turn delay (ms):', String(n(r, 'inter_turn_delay_ms'))))
  lines.push(row('Benchmark duration (s):', pyFixed(n(r, 'duration'), 2)))
  lines.push(center(' Overall (All Turns) ', '-', 60), ...block(r, percentiles))
  const perTurn = Array.isArray(r.per_turn_metrics) ? (r.per_turn_metrics as Record<string, unknown>[]) : []
  for (const turn of perTurn) {
    lines.push(center(` Turn ${n(turn, 'turn_index') + 1} (${n(turn, 'num_samples')} samples) `, '-', 60))
    lines.push(...block(turn, percentiles))
  }
  lines.push('='.repeat(60))
  return `${lines.join('\n')}\n`
}
