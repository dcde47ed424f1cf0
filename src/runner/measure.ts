/**
 * The measure stage: sends a prepared run's timed requests and returns one record per request with
 * the run's timing. This is the seam where a way of sending plugs in: {@link measureRequests} sends
 * from this thread, {@link measureOnClientThreads} from the `--client-threads` worker threads, and
 * `runBenchmark` takes the one the config asks for ({@link measureStageOf}); any function of type
 * {@link MeasureRequests} can replace them, and what comes before (prepare) and after (the run
 * extras, summarise) stays the same.
 */
import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestOutput, RequestRecord } from '../config/records.ts'
import type { ClientHealthSummary } from '../metrics/client-health.ts'
import type { Tokenizer } from '../tokenizer/index.ts'
import { withFields } from '../with-fields.ts'
import { countOutputTokens } from './output-tokens.ts'
import type { PreparedRequests } from './prepare.ts'
import { redactSecrets } from './redact.ts'
import { DEFAULT_RETRY_POLICY, type RetryStats, sendWithRetries } from './retry.ts'
import type { RequestProgress, RunClock, RunHooks } from './run-types.ts'
import { sendSchedule } from './send-schedule.ts'
import type { ClientThreads } from './threads/client-threads.ts'

/** What the measure stage is told while it sends. */
export interface MeasureHooks {
  /** Stops new sends; requests in flight get the drain time, and what was measured is returned. */
  signal?: AbortSignal
  /** A second interrupt: abort the requests in flight now. */
  forceSignal?: AbortSignal
  /** After each measured request; `total` is the number scheduled (see {@link RunHooks}). */
  onRequestEnd?(done: number, total: number, request?: RequestProgress): void
}

/** A measured run: its records and when it ran. */
export interface Measured {
  /**
   * One per request sent, in dispatch order, complete: `requestId`, the intended and actual
   * send times, and `outputLen` (the usage count, else the text re-tokenised; 0 for a failure).
   * Error texts are already redacted.
   */
  records: RequestRecord[]
  /** `performance.now() / 1000` just before the first arrival wait (Python's benchmark_start_time). */
  startS: number
  /** After the last request finished, on the same clock. */
  endS: number
  /** The signal stopped the run before every request was sent and answered. */
  interrupted: boolean
  retries: RetryStats
  /** The client self-check over the timed run; absent with `--client-check off`. */
  clientHealth?: ClientHealthSummary
  /** When the timed run started and ended, on the monotonic clock and the wall clock. */
  clock: RunClock
  /** `--segment`: each record's index in the whole schedule (the records hold this segment's share). */
  scheduleIndexes?: number[]
}

/** The measure stage's contract: a prepared run in, records and timing out. */
export type MeasureRequests = (plan: PreparedRequests, hooks: MeasureHooks) => Promise<Measured>

/**
 * The measure stage `config` asks for: this thread's with `--client-threads 1`, else the client
 * threads' (which sends from this thread when `auto` chose one thread and the prepare stage
 * started none).
 */
export function measureStageOf(config: BenchConfig): MeasureRequests {
  return config.clientThreads === 1 ? measureRequests : measureOnClientThreads
}

/**
 * Sends every timed request at its offset, behind the FIFO concurrency limit, with `--max-retries`,
 * under the client self-check, from this thread, and only this process's share with `--segment`
 * (`send-schedule.ts`). Python: benchmark (vllm/benchmarks/serve.py).
 */
export function measureRequests(plan: PreparedRequests, hooks: MeasureHooks = {}): Promise<Measured> {
  return measureThrough(plan, hooks, undefined)
}

/**
 * {@link measureRequests} from the client threads the prepare stage started (and warmed): each
 * thread gets its share of the schedule and of `--max-concurrency` once, sends and times it on its
 * own and hands its records back in batches; this thread starts, stops and merges them. Without
 * threads (`auto` chose one) it sends from this thread. A run stopped before the threads started
 * sends nothing.
 */
export function measureOnClientThreads(plan: PreparedRequests, hooks: MeasureHooks = {}): Promise<Measured> {
  return measureThrough(plan, hooks, plan.threads)
}

async function measureThrough(
  plan: PreparedRequests,
  hooks: MeasureHooks,
  threads: ClientThreads | undefined,
): Promise<Measured> {
  const { config, backend, client, requests, secrets, retries } = plan
  const policy = { ...DEFAULT_RETRY_POLICY, maxRetries: config.request.maxRetries }
  const pooling = backend.task === 'pooling'
  const startedMs = performance.now()
  const sent = await sendSchedule(
    config,
    requests.map(({ offsetS, request }, index) => ({ offsetS, payload: { request, index } })),
    {
      threads,
      // A planned request is plain data: it crosses to a thread as it is.
      portable: ({ request }) => request,
      here: ({ request }, signal) =>
        sendWithRetries(
          (onEarlyFailure) => backend.send(withFields(request, { signal, onEarlyFailure }), client),
          policy,
          retries,
          signal,
        ),
      redact: (error) => redactSecrets(error, secrets),
      retries,
    },
    {
      onShareEnd: (done, total, ended) =>
        hooks.onRequestEnd?.(done, total, {
          inFlight: ended.inFlight,
          success: ended.output.success,
          elapsedS: (performance.now() - startedMs) / 1000,
          ...(ended.output.success && !pooling && ended.output.ttftS > 0
            ? { ttftS: ended.output.ttftS }
            : {}),
          ...(ended.output.success && pooling ? { e2elS: ended.output.latencyS } : {}),
        }),
      ...(hooks.forceSignal ? { forceSignal: hooks.forceSignal } : {}),
      ...(hooks.signal ? { signal: hooks.signal } : {}),
      closedLoop: !plan.openLoop,
    },
  )
  const { outcome, scheduleIndexes } = sent
  const clientHealth = sent.clientHealth && {
    ...sent.clientHealth,
    // Each client thread builds its HTTP client from the same options and environment as this one.
    httpTransport: client.transport,
    clientThreads: sent.clientThreads,
  }
  const records: RequestRecord[] = []
  for (const [k, { index: _, ...output }] of outcome.results.entries()) {
    records.push(
      withFields(output, {
        requestId: requests[scheduleIndexes[k]!]!.request.requestId,
        outputLen: await resolveOutputLen(output, plan.tokenizer),
      }),
    )
  }
  return {
    records,
    startS: outcome.startS,
    endS: outcome.endS,
    interrupted: outcome.interrupted,
    retries,
    ...(clientHealth ? { clientHealth } : {}),
    clock: { startEpochMs: sent.startEpochMs, startS: outcome.startS, endS: outcome.endS },
    ...(config.segment ? { scheduleIndexes } : {}),
  }
}

/** Usage count first; else re-tokenise the text (Python: `len(tokenizer(text).input_ids)`); failures count 0. */
async function resolveOutputLen(output: RequestOutput, tokenizer: Tokenizer | undefined): Promise<number> {
  if (!output.success) return 0
  if (output.outputTokens) return output.outputTokens
  if (!tokenizer) return 1
  return countOutputTokens(output.generatedText, tokenizer)
}
