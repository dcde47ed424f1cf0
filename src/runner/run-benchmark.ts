import { HttpClient } from '../backends/http.ts'
import { getBackend } from '../backends/index.ts'
import type { BackendRequest, BackendTask } from '../backends/types.ts'
import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestOutput, RequestRecord, SampleRequest } from '../config/records.ts'
import { generateRequests } from '../datasets/index.ts'
import { filterByMaxModelLen } from '../datasets/sampling.ts'
import { traceOffsetsS } from '../datasets/timed-trace.ts'
import { DatasetError } from '../errors.ts'
import { calculateMetrics } from '../metrics/calculate.ts'
import { calculatePoolingMetrics } from '../metrics/calculate-pooling.ts'
import type { ClientHealthSummary } from '../metrics/client-health.ts'
import { type IntendedFamily, intendedDelaysS, intendedStatistics } from '../metrics/intended.ts'
import { pyFloatRepr } from '../metrics/py-number.ts'
import { clientResultKeys } from '../report/client-keys.ts'
import { buildPoolingResult } from '../report/pooling-result.ts'
import { buildResult, formatDate } from '../report/result-json.ts'
import type { BenchResult } from '../report/result-types.ts'
import { computeSchedule } from '../schedule/index.ts'
import { loadTokenizer, type Tokenizer } from '../tokenizer/index.ts'
import { dispatch } from './dispatcher.ts'
import { assignLoraModules } from './lora.ts'
import { endpointHeaders, resolveServedModel, type ServedModel } from './model-info.ts'
import { runMultiTurn } from './multi-turn.ts'
import { countOutputTokens } from './output-tokens.ts'
import { resetPrefixCache } from './prefix-cache-reset.ts'
import { waitForEndpoint } from './ready-check.ts'
import { redactDeep, redactError, redactSecrets, secretsOf } from './redact.ts'
import { resultSetup } from './result-setup.ts'
import { DEFAULT_RETRY_POLICY, type RetryStats, sendWithRetries } from './retry.ts'
import { checkRunInputs } from './run-checks.ts'
import { openClientThreads, sendSchedule } from './send-schedule.ts'
import { ABORTED, finishExtras, startExtrasUnlessStopped, untilAborted } from './signals.ts'
import type { ClientThreads } from './threads/client-threads.ts'

export interface RunHooks {
  /** Aborting stops new sends, drains in-flight requests briefly, and still returns what was measured. */
  signal?: AbortSignal
  /** A second interrupt: abort the requests in flight now instead of after the drain time. */
  forceSignal?: AbortSignal
  /** Reuse one client across runs to keep its connections warm; the run closes only a client it created. */
  httpClient?: HttpClient
  /** Called after each measured request; `total` is the number scheduled. */
  onRequestEnd?(done: number, total: number): void
  /** Progress lines, as Python prints them (`Starting main benchmark run...`). */
  log?(line: string): void
}

export interface RunOutcome {
  /**
   * The Python result. For a `pooling` backend it has the pooling shape (`PoolingBenchResult` in
   * report/pooling-result.ts: no `failed` or output-token keys); branch on `task`.
   */
  result: BenchResult
  /** The backend's task type: which result shape `result` has. */
  task: BackendTask
  records: RequestRecord[]
  /** True when the signal stopped the run before every request was sent and answered. */
  interrupted: boolean
  /** Retries of the timed run (`--max-retries`); all 0 without it. */
  retries: RetryStats
  /**
   * The client self-check of the timed run (also in the result as `client_health`); absent with
   * `--client-check off`. `saturated` means the client, not the server,
   * was the bottleneck: its latencies do not measure the server.
   * @experimental
   */
  clientHealth?: ClientHealthSummary
  /** When the timed run started and ended: monotonic seconds, and the wall clock at its start. */
  clock?: RunClock
  /** `--segment`: each record's index in the whole schedule (records hold this segment's share only). */
  scheduleIndexes?: number[]
}

/** The clock of a timed run, so runs of other processes can be laid on one time line (`servebench merge`). */
export interface RunClock {
  /** `Date.now()` read at `startS`. */
  startEpochMs: number
  /** Monotonic seconds (`performance.now() / 1000`), as the records' times. */
  startS: number
  endS: number
}

/**
 * One benchmark run: model and tokenizer, dataset, ready check, warm-ups, the timed run, metrics.
 * Python: main_async + benchmark (vllm/benchmarks/serve.py); Rust: lib.rs run → benchmark.rs.
 */
export async function runBenchmark(config: BenchConfig, hooks: RunHooks = {}): Promise<RunOutcome> {
  const retries: RetryStats = { retries: 0, retriedRequests: 0, recovered: 0 }
  let outcome: Omit<RunOutcome, 'retries'>
  try {
    outcome = await runMeasured(config, hooks, retries)
  } catch (error) {
    // The API key and --header values never reach a printed error.
    throw redactError(error, secretsOf(config.endpoint))
  }
  // Deviation: a servebench key, last in the result, written only when the run was interrupted.
  if (outcome.interrupted) outcome.result.interrupted = true
  // One redaction pass over all a run gives back: a server may echo a key in any text.
  const secrets = secretsOf(config.endpoint)
  redactDeep(outcome.result, secrets)
  redactDeep(outcome.records, secrets)
  return { ...outcome, retries }
}

async function runMeasured(
  config: BenchConfig,
  hooks: RunHooks,
  retries: RetryStats,
): Promise<Omit<RunOutcome, 'retries'>> {
  const log = hooks.log ?? (() => {})
  checkRunInputs(config)
  // Deviation: Rust resets only before sweep points; servebench before every run it makes.
  if (config.resetPrefixCache) await resetPrefixCache(config.endpoint, log)
  if (config.multiTurn) return runMultiTurn(config, hooks)
  const endpoint = config.endpoint
  // Every phase before the timed run gives way to an interrupt, which then sends nothing more.
  const stop = hooks.signal
  const model = await untilAborted(resolveServedModel(endpoint, lookupTimeoutMs(config)), stop)
  const { served, requestModel } = model === ABORTED ? unresolvedModel(endpoint) : model
  const tokenizerId = config.tokenizer.skipInit ? null : (config.tokenizer.id ?? served.id)
  const tokenizer = orUndefined(
    tokenizerId && !stop?.aborted
      ? await untilAborted(
          loadTokenizer({
            id: tokenizerId,
            baseUrl: endpoint.baseUrl,
            model: requestModel,
            headers: endpointHeaders(endpoint),
            mode: config.tokenizer.mode,
            trustRemoteCode: config.tokenizer.trustRemoteCode,
          }),
          stop,
        )
      : undefined,
  )
  // Without a tokenizer (--skip-tokenizer-init) only the custom dataset runs, as in Python.
  const { chatTemplateKwargs } = config.tokenizer
  const generated = stop?.aborted
    ? ABORTED
    : await untilAborted(
        generateRequests(config.dataset, {
          ...(tokenizer ? { tokenizer } : {}),
          numPrompts: config.numPrompts,
          seed: config.seed,
          backend: endpoint.backend,
          ...(chatTemplateKwargs ? { chatTemplateKwargs } : {}),
        }),
        stop,
      )
  const samples = generated === ABORTED ? [] : fitMaxModelLen(generated, config.maxModelLen, log)
  // One adapter per request, drawn before the run (Rust: after the warm-ups, from --seed).
  const loraModels = config.lora ? assignLoraModules(config.lora, samples.length, config.seed) : undefined

  const backend = getBackend(endpoint.backend)
  const secrets = secretsOf(endpoint)
  const url = `${endpoint.baseUrl}${endpoint.endpointPath}`
  const extraBody = { ...config.request.sampling, ...config.request.extraBody }
  const toRequest = (
    sample: SampleRequest,
    requestId: string,
    signal?: AbortSignal,
    model = requestModel,
  ): BackendRequest => ({
    url,
    requestId,
    model,
    prompt: sample.promptTokenIds ?? sample.prompt,
    ...(sample.promptList ? { promptList: sample.promptList } : {}),
    ...(sample.multiModalContent ? { multiModalContent: sample.multiModalContent } : {}),
    ...(sample.audio ? { audio: sample.audio } : {}),
    ...(sample.chatMessages ? { chatMessages: sample.chatMessages } : {}),
    ...(sample.requestOverrides ? { requestOverrides: sample.requestOverrides } : {}),
    promptLen: sample.promptLen,
    outputLen: sample.expectedOutputLen,
    ignoreEos: config.request.ignoreEos,
    ...(config.request.logprobs !== undefined ? { logprobs: config.request.logprobs } : {}),
    extraBody,
    headers: endpoint.headers,
    ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
    ...(config.request.timeoutS !== undefined ? { timeoutS: config.request.timeoutS } : {}),
    ...(config.request.readTimeoutS !== undefined ? { readTimeoutS: config.request.readTimeoutS } : {}),
    ...(signal ? { signal } : {}),
  })

  const connections = Math.max(config.load.maxConcurrency ?? samples.length, 1)
  const client = hooks.httpClient ?? new HttpClient({ connections, insecure: endpoint.insecure })
  let threads: ClientThreads | undefined
  try {
    const first = samples[0]
    if (!first && !stop?.aborted)
      throw new Error('The dataset produced no requests. This is a bug in servebench.')
    const prefix = config.request.requestIdPrefix
    if (!first || stop?.aborted) {
      // Interrupted before the timed run: no ready check, no warm-ups; the run sends nothing.
    } else if (config.readyCheckTimeoutS > 0) {
      log('Starting initial single prompt test run...')
      await waitForEndpoint(
        (signal) => backend.send(toRequest(first, `${prefix}ready`, signal), client),
        config.readyCheckTimeoutS,
        hooks.signal ? { signal: hooks.signal } : {},
      ).catch((error: unknown) => {
        if (!stop?.aborted) throw error
      })
      log('Initial test run completed.')
    } else {
      log('Skipping endpoint ready check.')
    }
    if (first && !stop?.aborted && config.numWarmups > 0) {
      log(`Warming up with ${config.numWarmups} requests...`)
      await dispatch(
        Array.from({ length: config.numWarmups }, (_, i) => ({ offsetS: 0, payload: i })),
        (i, signal) => backend.send(toRequest(first, `${prefix}warmup-${i}`, signal), client),
        withSignal(
          {
            ...(config.load.maxConcurrency ? { maxConcurrency: config.load.maxConcurrency } : {}),
            ...(hooks.forceSignal ? { forceSignal: hooks.forceSignal } : {}),
          },
          hooks.signal,
        ),
      )
      log('Warmup run completed.')
    }

    // --client-threads: the threads send; the schedule, the limit and the clock stay here.
    threads = await openClientThreads(config, { connections, retries, ...(stop ? { signal: stop } : {}) })
    log('Starting main benchmark run...')
    log(`Traffic request rate: ${pyFloatRepr(config.load.requestRate)}`)
    log(
      `Burstiness factor: ${pyFloatRepr(config.load.burstiness)} (${config.load.burstiness === 1 ? 'Poisson process' : 'Gamma distribution'})`,
    )
    log(`Maximum request concurrency: ${config.load.maxConcurrency ?? 'None'}`)
    const schedule = computeSchedule(samples.length, config.load, config.seed)
    // Self-timed traces (timed_trace) replace the computed schedule with their own timestamps.
    const traceOffsets = traceOffsetsS(samples)
    const offsetsS = traceOffsets ?? schedule.offsetsS
    // An open loop has an intended send time per request; a closed loop sends when a slot frees.
    const openLoop =
      Number.isFinite(config.load.requestRate) ||
      config.load.rampUp !== undefined ||
      traceOffsets !== undefined
    const extras = await startExtrasUnlessStopped(stop, {
      config,
      isPooling: backend.task === 'pooling',
      log,
      // Python's probe: "Hi", one output token.
      sendProbe: (signal) =>
        backend.send(
          toRequest({ prompt: 'Hi', promptLen: 1, expectedOutputLen: 1 }, `${prefix}probe`, signal),
          client,
        ),
    })
    // The seam of the timed run (send-schedule.ts): --segment share, --start-at, threads, self-check.
    const sent = await sendSchedule(
      config,
      samples.map((sample, i) => ({
        offsetS: offsetsS[i]!,
        payload: { sample, requestId: `${prefix}${i}`, model: loraModels?.[i] ?? requestModel, index: i },
      })),
      {
        threads,
        portable: ({ sample, requestId, model }) => toRequest(sample, requestId, undefined, model),
        here: ({ sample, requestId, model }, signal) =>
          sendWithRetries(
            (onEarlyFailure) =>
              backend.send({ ...toRequest(sample, requestId, signal, model), onEarlyFailure }, client),
            { ...DEFAULT_RETRY_POLICY, maxRetries: config.request.maxRetries ?? 0 },
            retries,
            signal,
          ),
        after: (output) => ({ ...output, error: redactSecrets(output.error, secrets) }),
      },
      withSignal(
        {
          onShareEnd: (done: number, total: number) => hooks.onRequestEnd?.(done, total),
          ...(hooks.forceSignal ? { forceSignal: hooks.forceSignal } : {}),
        },
        hooks.signal,
      ),
    )
    const { outcome, clientHealth, scheduleIndexes } = sent
    const clock: RunClock = { startEpochMs: sent.startEpochMs, startS: outcome.startS, endS: outcome.endS }

    const records: RequestRecord[] = []
    for (const [k, { index: _, ...output }] of outcome.results.entries()) {
      records.push({
        ...output,
        requestId: `${prefix}${scheduleIndexes[k]}`,
        outputLen: await resolveOutputLen(output, tokenizer),
      })
    }
    const durationS = outcome.endS - outcome.startS
    const extra = await finishExtras(stop, extras, {
      startS: outcome.startS,
      durationS,
      records,
      ratesPerS: schedule.ratesPerS,
    })
    const setup = resultSetup(config, {
      date: formatDate(new Date()),
      modelId: served.id,
      tokenizerId,
      numPrompts: config.numPrompts,
    })
    if (backend.task === 'pooling') {
      const pooling = calculatePoolingMetrics(records, {
        durationS,
        percentileMetrics: config.percentileMetrics,
        metricPercentiles: config.metricPercentiles,
        ...(config.load.maxConcurrency ? { maxConcurrency: config.load.maxConcurrency } : {}),
        requestRateFinite: Number.isFinite(config.load.requestRate),
      })
      // The pooling shape travels under BenchResult's index signature; `task` tells them apart.
      const result = buildPoolingResult(setup, pooling, records, extra.extra) as unknown as BenchResult
      if (extra.steadyState !== undefined) result.steady_state = extra.steadyState
      addClientKeys(result, records, { openLoop, families: ['intended_e2el'], config, clientHealth })
      return {
        result,
        records,
        task: 'pooling',
        interrupted: outcome.interrupted,
        ...(clientHealth ? { clientHealth } : {}),
        clock,
        ...(config.segment ? { scheduleIndexes } : {}),
      }
    }
    const metrics = calculateMetrics(records, {
      durationS,
      ...(config.goodput ? { goodput: config.goodput } : {}),
      percentileMetrics: config.percentileMetrics,
      metricPercentiles: config.metricPercentiles,
      hasTokenizer: tokenizer !== undefined,
      ...(config.load.maxConcurrency ? { maxConcurrency: config.load.maxConcurrency } : {}),
      requestRateFinite: Number.isFinite(config.load.requestRate),
    })
    const result = buildResult(setup, metrics, records, extra.extra)
    if (extra.steadyState !== undefined) result.steady_state = extra.steadyState
    addClientKeys(result, records, {
      openLoop,
      // As Python's TTFT statistics, none without a tokenizer (--skip-tokenizer-init).
      families: tokenizer ? ['intended_ttft', 'intended_e2el'] : ['intended_e2el'],
      config,
      clientHealth,
    })
    return {
      result,
      records,
      task: 'generation',
      interrupted: outcome.interrupted,
      ...(clientHealth ? { clientHealth } : {}),
      clock,
      ...(config.segment ? { scheduleIndexes } : {}),
    }
  } finally {
    await threads?.close()
    if (!hooks.httpClient) await client.close()
  }
}

/**
 * Servebench's client keys, after `steady_state`: latency from the intended send time (open loops),
 * `intended_delays`, and `client_health`.
 */
export function addClientKeys(
  result: BenchResult,
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

/** The `/v1/models` lookup's timeout: the shorter of `--request-timeout` and `--read-timeout`, else 30 s. */
function lookupTimeoutMs(config: BenchConfig): number | undefined {
  const limitsS = [config.request.timeoutS, config.request.readTimeoutS].filter((s) => s !== undefined)
  return limitsS.length === 0 ? undefined : Math.max(1, Math.min(...limitsS) * 1000)
}

/** The model of a run interrupted before `/v1/models` answered: `--model`, else unknown. */
function unresolvedModel(endpoint: BenchConfig['endpoint']): { served: ServedModel; requestModel: string } {
  const name = endpoint.model ?? 'unknown'
  return { served: { name, id: name }, requestModel: endpoint.servedModelName ?? name }
}

function orUndefined<T>(value: T | typeof ABORTED): T | undefined {
  return value === ABORTED ? undefined : value
}

/** Rust `--max-model-len`: drops the requests that do not fit; none left is an error. */
function fitMaxModelLen(
  samples: SampleRequest[],
  maxModelLen: number | undefined,
  log: (line: string) => void,
): SampleRequest[] {
  if (maxModelLen === undefined) return samples
  const { kept, dropped } = filterByMaxModelLen(samples, maxModelLen)
  if (kept.length === 0) {
    throw new DatasetError(
      `--max-model-len ${maxModelLen}: every one of the ${samples.length} requests needs more (prompt + expected output); raise it or shorten the dataset`,
    )
  }
  if (dropped > 0) log(`Filtered out ${dropped} requests longer than --max-model-len ${maxModelLen}.`)
  return kept
}

/** Usage count first; else re-tokenise the text (Python: `len(tokenizer(text).input_ids)`); failures count 0. */
async function resolveOutputLen(output: RequestOutput, tokenizer: Tokenizer | undefined): Promise<number> {
  if (!output.success) return 0
  if (output.outputTokens) return output.outputTokens
  if (!tokenizer) return 1
  return countOutputTokens(output.generatedText, tokenizer)
}

function withSignal<T extends object>(
  options: T,
  signal: AbortSignal | undefined,
): T & { signal?: AbortSignal } {
  return signal ? { ...options, signal } : options
}
