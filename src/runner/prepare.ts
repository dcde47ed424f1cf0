/**
 * The prepare stage: everything a run does before its first timed request. The served model, the
 * tokenizer, the dataset, the ready check and warm-ups, and the schedule, ending in a
 * {@link PreparedRun} that the measure stage sends and the summarise stage reads.
 * Python: main_async + the start of benchmark (vllm/benchmarks/serve.py); Rust: lib.rs run.
 */
import { HttpClient } from '../backends/http.ts'
import { getBackend } from '../backends/index.ts'
import type { Backend, BackendRequest, BackendTask } from '../backends/types.ts'
import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestOutput, SampleRequest } from '../config/records.ts'
import { generateRequests } from '../datasets/index.ts'
import { moduleOf } from '../datasets/registry.ts'
import { filterByMaxModelLen } from '../datasets/sampling.ts'
import { DatasetError } from '../errors.ts'
import { computeSchedule } from '../schedule/index.ts'
import type { Tokenizer } from '../tokenizer/index.ts'
import { withFields } from '../with-fields.ts'
import { dispatch } from './dispatcher.ts'
import { assignLoraModules } from './lora.ts'
import { endpointHeaders } from './model-info.ts'
import { resetPrefixCache } from './prefix-cache-reset.ts'
import { type PreparedConversations, prepareConversations } from './prepare-conversations.ts'
import { secretsOf } from './redact.ts'
import {
  checkReady,
  requestBuilder,
  servedModelUnlessStopped,
  tokenizerUnlessStopped,
} from './request-builder.ts'
import { noRetries, type RetryStats } from './retry.ts'
import { checkRunInputs } from './run-checks.ts'
import type { RunHooks } from './run-types.ts'
import { segmentConcurrency, segmentShare } from './segments.ts'
import { openClientThreads } from './send-schedule.ts'
import { alignPromptsToServerTokenizer } from './server-alignment.ts'
import { ABORTED, untilAborted } from './signals.ts'
import { loadOfSchedule, type OfferedLoad } from './threads/auto-threads.ts'
import type { ClientThreads } from './threads/client-threads.ts'
import { trafficLines } from './traffic-lines.ts'

/** One timed request: when it is due (seconds after the run starts) and what it sends. */
export interface TimedRequest {
  offsetS: number
  /** Complete but for the per-send `signal` and `onEarlyFailure`. */
  request: BackendRequest
}

/** What a run of independent requests (every mode but multi-turn) prepared. */
export interface PreparedRequests {
  kind: 'requests'
  config: BenchConfig
  /** Which result the run gives. */
  task: BackendTask
  backend: Backend
  client: HttpClient
  /** The timed requests in dispatch order; empty when the run was stopped before it began. */
  requests: TimedRequest[]
  /** The schedule's rate per request, in dispatch order (`rps_change_events`). */
  ratesPerS: readonly number[]
  /** An open loop has an intended send time per request; a closed loop sends when a slot frees. */
  openLoop: boolean
  /** Counts output tokens of a response without `usage`; absent with `--skip-tokenizer-init`. */
  tokenizer?: Tokenizer
  /** `model_id` of the result. */
  modelId: string
  /** `tokenizer_id` of the result; null with `--skip-tokenizer-init`. */
  tokenizerId: string | null
  /** The run's secrets, masked in every error text it records. */
  secrets: readonly string[]
  /** Python's probe request (`"Hi"`, one output token), sent outside the concurrency limit. */
  sendProbe(signal: AbortSignal): Promise<RequestOutput>
  /** The `--client-threads` threads, started and ready; absent for one thread. */
  threads?: ClientThreads
  /** The run's retry counts: the measure stage and the client threads add to it. */
  retries: RetryStats
  log(line: string): void
  /** Closes the client threads, and the HTTP client when the run created it. */
  close(): Promise<void>
}

/** A prepared run: independent requests, or multi-turn conversations. */
export type PreparedRun = PreparedRequests | PreparedConversations

/**
 * Prepares one run. Every phase before the timed run gives way to `hooks.signal`: a run stopped
 * here prepares no requests and sends nothing more. The caller closes the prepared run.
 */
export async function prepareRun(config: BenchConfig, hooks: RunHooks = {}): Promise<PreparedRun> {
  const log = hooks.log ?? (() => {})
  checkRunInputs(config)
  // Deviation: Rust resets only before sweep points; servebench before every run it makes.
  if (config.resetPrefixCache) await resetPrefixCache(config.endpoint, log, config.request)
  if (config.multiTurn) return prepareConversations(config, config.multiTurn, hooks)
  return prepareRequests(config, hooks, log)
}

async function prepareRequests(
  config: BenchConfig,
  hooks: RunHooks,
  log: (line: string) => void,
): Promise<PreparedRequests> {
  const endpoint = config.endpoint
  const stop = hooks.signal
  const { served, requestModel } = await servedModelUnlessStopped(config, stop)
  const tokenizerId = config.tokenizer.skipInit ? null : (config.tokenizer.id ?? served.id)
  const tokenizer = tokenizerId
    ? await tokenizerUnlessStopped(config, tokenizerId, requestModel, stop)
    : undefined
  if (tokenizer?.kind === 'server') log(serverTokenizerNote(tokenizer.id, config.tokenizer.id !== undefined))
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
  // Python: random and prefix_repetition prompts are fitted to the server's tokenizer.
  const dataset = moduleOf(config.dataset)
  const aligned =
    generated === ABORTED || !dataset.alignsToServerTokenizer
      ? generated
      : await untilAborted(
          alignPromptsToServerTokenizer(generated, {
            baseUrl: endpoint.baseUrl,
            model: requestModel,
            headers: endpointHeaders(endpoint),
            insecure: endpoint.insecure,
            log,
            timeouts: config.request,
          }),
          stop,
        )
  const samples = aligned === ABORTED ? [] : fitMaxModelLen(aligned, config.maxModelLen, log)
  // One adapter per request, drawn before the run (Rust: after the warm-ups, from --seed).
  const loraModels = config.lora ? assignLoraModules(config.lora, samples.length, config.seed) : undefined

  const backend = getBackend(endpoint.backend)
  const toRequest = requestBuilder(config, requestModel)
  const connections = Math.max(config.load.maxConcurrency ?? samples.length, 1)
  const client =
    hooks.httpClient ??
    new HttpClient({ connections, insecure: endpoint.insecure, transport: endpoint.httpTransport })
  let threads: ClientThreads | undefined
  const close = async (): Promise<void> => {
    await threads?.close()
    if (!hooks.httpClient) await client.close()
  }
  const prefix = config.request.requestIdPrefix
  const retries: RetryStats = noRetries()
  try {
    const first = samples[0]
    if (!first && !stop?.aborted)
      throw new Error('The dataset produced no requests. This is a bug in servebench.')
    // Self-timed traces (timed_trace) replace the computed schedule with their own timestamps.
    const traceOffsets = dataset.sendOffsetsS?.(samples)
    const schedule = computeSchedule(samples.length, config.load, config.seed)
    const offsetsS = traceOffsets ?? schedule.offsetsS
    // Before the timed run, as the tokenizer and the prompts: two threads' start-up (each loads
    // the backends and undici) took 1.1–1.7 s of CPU, which the run's own figures do not include.
    // Before the warm-ups too, which they send.
    if (first && !stop?.aborted) {
      threads = await openClientThreads(config, {
        connections,
        retries,
        load: offeredLoad(config, offsetsS, samples, backend.task !== 'pooling'),
        ...(stop ? { signal: stop } : {}),
      })
      await readyAndWarm(config, hooks, { backend, client, threads }, (id) => toRequest(first, id), log)
      // The threads count their retries into the run's; the warm-ups' are not the run's.
      Object.assign(retries, noRetries())
    }

    // A run stopped before it began says nothing about a run that will not start.
    if (!stop?.aborted) {
      log('Starting main benchmark run...')
      for (const line of trafficLines(config.load, traceOffsets !== undefined)) log(line)
    }
    const probe = toRequest({ prompt: 'Hi', promptLen: 1, expectedOutputLen: 1 }, `${prefix}probe`)
    return {
      kind: 'requests',
      config,
      task: backend.task,
      backend,
      client,
      requests: samples.map((sample, i) => ({
        offsetS: offsetsS[i]!,
        request: toRequest(sample, `${prefix}${i}`, loraModels ? { model: loraModels[i]! } : undefined),
      })),
      ratesPerS: schedule.ratesPerS,
      openLoop:
        Number.isFinite(config.load.requestRate) ||
        config.load.rampUp !== undefined ||
        traceOffsets !== undefined,
      ...(tokenizer ? { tokenizer } : {}),
      modelId: served.id,
      tokenizerId,
      secrets: secretsOf(endpoint),
      sendProbe: (signal) => backend.send({ ...probe, signal }, client),
      ...(threads ? { threads } : {}),
      retries,
      log,
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}

/**
 * The ready check (`--ready-check-timeout-sec`) and `--num-warmups`, both with the first prompt.
 * The warm-ups go through the client that sends the timed run (`--client-threads`: the threads),
 * so its connections are open and its code is compiled when the clock starts.
 */
async function readyAndWarm(
  config: BenchConfig,
  hooks: RunHooks,
  sender: { backend: Backend; client: HttpClient; threads: ClientThreads | undefined },
  firstRequest: (requestId: string) => BackendRequest,
  log: (line: string) => void,
): Promise<void> {
  const { backend, client, threads } = sender
  const stop = hooks.signal
  const prefix = config.request.requestIdPrefix
  await checkReady(
    config,
    (signal) => backend.send({ ...firstRequest(`${prefix}ready`), signal }, client),
    stop,
    log,
  )
  if (stop?.aborted || config.numWarmups <= 0) return
  log(`Warming up with ${config.numWarmups} requests...`)
  await dispatch(
    Array.from({ length: config.numWarmups }, (_, i) => ({ offsetS: 0, payload: i })),
    (i, signal) => {
      const request = firstRequest(`${prefix}warmup-${i}`)
      return threads ? threads.send(request, signal) : backend.send(withFields(request, { signal }), client)
    },
    {
      ...(config.load.maxConcurrency ? { maxConcurrency: config.load.maxConcurrency } : {}),
      ...(hooks.forceSignal ? { forceSignal: hooks.forceSignal } : {}),
      ...(stop ? { signal: stop } : {}),
    },
  )
  if (!stop?.aborted) log('Warmup run completed.')
}

/** The load this process's share of the schedule offers its client (`--client-threads auto`). */
function offeredLoad(
  config: BenchConfig,
  offsetsS: readonly number[],
  samples: readonly SampleRequest[],
  streamed: boolean,
): OfferedLoad {
  const { segment } = config
  const { maxConcurrency } = config.load
  return loadOfSchedule(
    segmentShare(offsetsS, segment),
    segmentShare(samples, segment).map((s) => s.expectedOutputLen),
    { ...(maxConcurrency ? { maxConcurrency: segmentConcurrency(maxConcurrency, segment) } : {}), streamed },
  )
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

/** Says who counts the tokens when it is the server: the result's `tokenizer_source` says it too. */
function serverTokenizerNote(id: string, named: boolean): string {
  return named
    ? `Tokenizer: the server's /tokenize and /detokenize, for ${id} (--tokenizer server)`
    : `Tokenizer: no tokenizer for "${id}" as a tiktoken name, a file, in the local cache or on the hub; ` +
        "the server's /tokenize and /detokenize count the tokens (--tokenizer names one)"
}
