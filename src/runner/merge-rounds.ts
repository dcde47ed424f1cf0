import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestRecord } from '../config/records.ts'
import {
  readServerMetrics,
  SERVER_METRICS_KEY,
  type ServerMetricsSeries,
} from '../report/result/server-metrics-key.ts'
import { noRetries } from './retry.ts'
import type { RunOutcome } from './run-types.ts'
import { summariseRecords } from './summarise.ts'

/**
 * One outcome from several rounds of the same benchmark, as if one run had sent every request:
 * each round's records are shifted in time so the rounds follow each other without the gaps
 * between them (ready checks, assertions), the measured durations add up, and the metrics are
 * computed again over all records, the latency from the intended send time included. The rounds'
 * extra keys (steady state, spec decode, probes) describe one round each and are not carried over;
 * the client self-check is the worst round's.
 */
export function mergeRounds(config: BenchConfig, rounds: readonly RunOutcome[]): RunOutcome {
  const first = rounds[0]
  if (!first) throw new Error('mergeRounds needs at least one round. This is a bug in servebench.')
  if (rounds.length === 1) return first
  const records: RequestRecord[] = []
  let durationS = 0
  let clockS = Number.NEGATIVE_INFINITY
  const shiftsS: number[] = []
  for (const round of rounds) {
    const startS = Math.min(...round.records.map((r) => r.arrivalTimeS))
    const shiftS = Number.isFinite(clockS) && Number.isFinite(startS) ? clockS - startS : 0
    shiftsS.push(shiftS)
    for (const r of round.records)
      records.push({
        ...r,
        arrivalTimeS: r.arrivalTimeS + shiftS,
        startTimeS: r.startTimeS + shiftS,
        ...(r.intendedTimeS !== undefined ? { intendedTimeS: r.intendedTimeS + shiftS } : {}),
      })
    clockS = (Number.isFinite(startS) ? startS + shiftS : clockS) + round.result.duration
    durationS += round.result.duration
  }
  const retries = noRetries()
  for (const round of rounds) {
    retries.retries += round.retries.retries
    retries.retriedRequests += round.retries.retriedRequests
    retries.recovered += round.retries.recovered
  }
  const interrupted = rounds.some((r) => r.interrupted)
  // The first round's setup keys, with every request counted; no round's extras.
  const clientHealth = rounds.find((r) => r.clientHealth?.saturated)?.clientHealth ?? first.clientHealth
  const merged = summariseRecords({
    config,
    kind: first.kind === 'pooling' ? 'pooling' : 'generation',
    date: String(first.result.date),
    modelId: String(first.result.model_id),
    tokenizerId: (first.result.tokenizer_id as string | null) ?? null,
    ...(first.result.tokenizer_source === 'server' ? { tokenizerSource: 'server' as const } : {}),
    hasTokenizer: first.result.tokenizer_id !== null,
    // The client keys: latency from the intended send time over all rounds, the worst self-check.
    openLoop: 'intended_delays' in first.result,
    numPrompts: records.length,
    records,
    durationS,
    extras: { extra: [] },
    interrupted: false,
    retries,
    ...(clientHealth ? { clientHealth } : {}),
  })
  const { result } = merged
  // The worst round's self-check as that round wrote it (a face may have added to it).
  const written = rounds.map((r) => r.result.client_health as { saturated?: boolean } | undefined)
  const worst = written.find((h) => h?.saturated) ?? written[0]
  if (worst) result.client_health = worst
  const serverMetrics = mergeServerMetrics(rounds, shiftsS)
  if (serverMetrics) result[SERVER_METRICS_KEY] = serverMetrics
  if (interrupted) result.interrupted = true
  return { ...merged, interrupted }
}

// The rounds' scraped series end to end, moved in time as their requests were; only when every
// round has them (a series with holes would draw a flat line across the gap).
function mergeServerMetrics(
  rounds: readonly RunOutcome[],
  shiftsS: readonly number[],
): ServerMetricsSeries | undefined {
  const all = rounds.map((r) => readServerMetrics(r.result[SERVER_METRICS_KEY]))
  if (all.some((s) => s === undefined)) return undefined
  const parts = all as ServerMetricsSeries[]
  const names = [...new Set(parts.flatMap((p) => Object.keys(p.series)))]
  const series: Record<string, number[]> = {}
  for (const name of names) series[name] = parts.flatMap((p) => p.series[name] ?? p.t_s.map(() => 0))
  return {
    source: parts[0]!.source,
    interval_s: parts[0]!.interval_s,
    t_s: parts.flatMap((p, i) => p.t_s.map((t) => t + shiftsS[i]!)),
    series,
  }
}
