/**
 * A capacity search over a real endpoint: each probe is an ordinary run (`runBenchmark`) of the
 * configured workload at one load, extended by rounds merged as one run (`mergeRounds`), judged
 * by `judge.ts`; the search (`search.ts`) chooses the loads. The CLI and the suites call it.
 *
 * Seeds are fixed by the probe's place in the search: probe i's round k uses `--seed` + 1000 i + k,
 * so a repeated search (the same verdicts) sends the same prompts at the same loads, while no probe
 * repeats another's prompts (a server's prefix cache would make the later one faster).
 */
import { performance } from 'node:perf_hooks'
import type { BenchConfig, GoodputConfig } from '../config/bench-config.ts'
import { formatDate, resultForFile } from '../report/result/result-json.ts'
import type { BenchResult } from '../report/result/result-types.ts'
import { mergeRounds } from '../runner/merge-rounds.ts'
import { redactUrl } from '../runner/redact.ts'
import { runBenchmark } from '../runner/run-benchmark.ts'
import type { RunHooks, RunOutcome } from '../runner/run-types.ts'
import { capacityAnswer } from './answer.ts'
import type { CapacityProbe, CapacityResultFile, CapacitySlo } from './capacity-result.ts'
import { judgeProbe } from './judge.ts'
import type { ResolvedCapacitySearch } from './options.ts'
import { type ProbeState, type SearchOutcome, searchCapacity } from './search.ts'

/** Runs one probe round; the default is `runBenchmark`. */
export type MeasureCapacityRound = (config: BenchConfig) => Promise<RunOutcome>

export interface CapacityRunInput {
  /** The workload: endpoint, dataset and load shape; the search sets the varied load and the size. */
  config: BenchConfig
  search: ResolvedCapacitySearch
  slos: readonly CapacitySlo[]
  /** The per-request limits of a `goodput` SLO. */
  goodput?: GoodputConfig
  signal?: AbortSignal
  /** Called after each probe's last round, with its index. */
  onProbe?(probe: CapacityProbe, index: number): void
  measure?: MeasureCapacityRound
  /** Hooks passed to each run (a shared HTTP client, the force signal). */
  runHooks?: Omit<RunHooks, 'signal' | 'log'>
}

export interface CapacityRun {
  file: CapacityResultFile
  outcome: SearchOutcome
  /** The search was stopped by the signal; the file holds the probes made. */
  interrupted: boolean
}

/** Searches the capacity and builds its result file. */
export async function runCapacity(input: CapacityRunInput): Promise<CapacityRun> {
  const { config, search, slos, goodput } = input
  const measure: MeasureCapacityRound =
    input.measure ??
    ((c) => runBenchmark(c, { ...input.runHooks, ...(input.signal ? { signal: input.signal } : {}) }))
  const startedMs = performance.now()
  const rounds = new Map<number, RunOutcome[]>()
  const files: CapacityProbe[] = []
  let first = true
  let interrupted = false
  let modelId = ''
  const measureProbe = async (load: number, requests: number, round: number): Promise<ProbeState> => {
    if (input.signal?.aborted) interrupted = true
    if (interrupted) throw new Interrupted()
    const index = round === 0 ? files.length : files.findIndex((p) => p.load === load)
    const roundConfig = probeConfig(config, search, load, requests, index * 1000 + round, first)
    first = false
    const outcome = await measure(roundConfig)
    if (outcome.interrupted || input.signal?.aborted) interrupted = true
    const atLoad = [...(round === 0 ? [] : (rounds.get(load) ?? [])), outcome]
    rounds.set(load, atLoad)
    const merged = mergeRounds(roundConfig, atLoad)
    // A multi-turn run's result carries the generation keys the SLOs read, as in suites.
    const result = merged.kind === 'multi-turn' ? (merged.result as unknown as BenchResult) : merged.result
    modelId ||= String(result.model_id ?? '')
    const judged = judgeProbe(result, merged.records, slos, goodput, search.confidence)
    const state: ProbeState = {
      load,
      verdict: judged.verdict,
      checks: judged.checks,
      numRequests: merged.records.length,
      durationS: result.duration,
      throughput: result.duration > 0 ? result.completed / result.duration : 0,
      rounds: atLoad.length,
    }
    const probe: CapacityProbe = {
      load,
      verdict: state.verdict,
      num_requests: state.numRequests,
      duration_s: state.durationS,
      checks: judged.checks,
      result: resultForFile(result, false),
      rounds: atLoad.length,
      ...(atLoad.some((o) => o.clientHealth?.saturated) ? { client_saturated: true } : {}),
    }
    if (round > 0) files[index] = probe
    else files.push(probe)
    if (interrupted) throw new Interrupted()
    return state
  }
  let outcome: SearchOutcome
  try {
    outcome = await searchCapacity(search, measureProbe, (state, index) =>
      input.onProbe?.(files.find((p) => p.load === state.load)!, index),
    )
  } catch (error) {
    if (!(error instanceof Interrupted)) throw error
    outcome = { probes: files.map(stateOf), totalRequests: sum(files), stop: 'budget' }
  }
  const durationS = (performance.now() - startedMs) / 1000
  const file: CapacityResultFile = {
    servebench_kind: 'capacity',
    date: formatDate(new Date()),
    backend: config.endpoint.backend,
    model_id: modelId || (config.endpoint.model ?? ''),
    base_url: redactUrl(config.endpoint.baseUrl),
    capacity: capacityAnswer(outcome, search.vary, search.confidence),
    slos: [...slos],
    ...(goodput ? { goodput } : {}),
    probes: files,
    search: {
      min_load: search.minLoad,
      max_load: search.maxLoad,
      precision: search.precision,
      budget_requests: search.budgetRequests,
      probe_requests: search.probeRequests,
      max_probe_requests: search.maxProbeRequests,
      probed: files.length,
      total_requests: sum(files),
      duration_s: durationS,
      stop: interrupted ? 'interrupted' : outcome.stop,
    },
  }
  return { file, outcome, interrupted }
}

/** The run of one probe round: the varied load set, `requests` prompts, the seed `--seed` + `seedOffset`. */
export function probeConfig(
  config: BenchConfig,
  search: Pick<ResolvedCapacitySearch, 'vary'>,
  load: number,
  requests: number,
  seedOffset: number,
  first: boolean,
): BenchConfig {
  return {
    ...config,
    numPrompts: requests,
    seed: config.seed + seedOffset,
    load:
      search.vary === 'request-rate'
        ? { ...config.load, requestRate: load }
        : { ...config.load, maxConcurrency: load },
    // Warm-ups and the ready check belong before the first probe only.
    ...(first ? {} : { numWarmups: 0, readyCheckTimeoutS: 0 }),
  }
}

class Interrupted extends Error {}

function stateOf(p: CapacityProbe): ProbeState {
  return {
    load: p.load,
    verdict: p.verdict,
    checks: p.checks,
    numRequests: p.num_requests,
    durationS: p.duration_s,
    throughput: 0,
    rounds: p.rounds ?? 1,
  }
}

function sum(probes: readonly CapacityProbe[]): number {
  return probes.reduce((n, p) => n + p.num_requests, 0)
}
