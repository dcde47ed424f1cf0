/**
 * What both prepare stages (independent requests, `--multi-turn` conversations) share before the
 * timed run: the served model and the tokenizer, each loaded unless the run is stopped first; the
 * request each sample (or turn) becomes; and the ready check, which a stop ends without an error.
 */
import type { BackendRequest } from '../backends/types.ts'
import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestOutput, SampleRequest } from '../config/records.ts'
import { loadTokenizer, type Tokenizer } from '../tokenizer/index.ts'
import { endpointHeaders, lookupTimeoutMs, resolveServedModel, type ServedModel } from './model-info.ts'
import { waitForEndpoint } from './ready-check.ts'
import { ABORTED, untilAborted } from './signals.ts'

/** What a sample's request is sent as beyond the run's defaults. */
export interface RequestTarget {
  /** The `model` field: a LoRA adapter; undefined = the run's model. */
  model?: string
  /** Headers after `--header` (a conversation's `X-Session-ID`). */
  headers?: Record<string, string>
}

/** Builds the request a sample becomes: everything but the per-send `signal` and `onEarlyFailure`. */
export type RequestBuilder = (
  sample: SampleRequest,
  requestId: string,
  target?: RequestTarget,
) => BackendRequest

/** The request builder of a run whose requests name `requestModel`. */
export function requestBuilder(config: BenchConfig, requestModel: string): RequestBuilder {
  const { endpoint, request } = config
  const url = `${endpoint.baseUrl}${endpoint.endpointPath}`
  const extraBody = { ...request.sampling, ...request.extraBody }
  return (sample, requestId, target) => ({
    url,
    requestId,
    model: target?.model ?? requestModel,
    prompt: sample.promptTokenIds ?? sample.prompt,
    ...(sample.promptList ? { promptList: sample.promptList } : {}),
    ...(sample.multiModalContent ? { multiModalContent: sample.multiModalContent } : {}),
    ...(sample.audio ? { audio: sample.audio } : {}),
    ...(sample.chatMessages ? { chatMessages: sample.chatMessages } : {}),
    ...(sample.requestOverrides ? { requestOverrides: sample.requestOverrides } : {}),
    promptLen: sample.promptLen,
    outputLen: sample.expectedOutputLen,
    ignoreEos: request.ignoreEos,
    ...(request.logprobs !== undefined ? { logprobs: request.logprobs } : {}),
    extraBody,
    headers: target?.headers ? { ...endpoint.headers, ...target.headers } : endpoint.headers,
    ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
    ...(request.timeoutS !== undefined ? { timeoutS: request.timeoutS } : {}),
    ...(request.readTimeoutS !== undefined ? { readTimeoutS: request.readTimeoutS } : {}),
  })
}

/**
 * The served model and the name requests send (`resolveServedModel`), with the lookup bounded by
 * the request timeouts; a run stopped before `/v1/models` answers goes on with `--model`, else
 * `unknown`, and prepares nothing more.
 */
export async function servedModelUnlessStopped(
  config: BenchConfig,
  stop: AbortSignal | undefined,
): Promise<{ served: ServedModel; requestModel: string }> {
  const { endpoint } = config
  const model = await untilAborted(resolveServedModel(endpoint, lookupTimeoutMs(config.request)), stop)
  if (model !== ABORTED) return model
  const name = endpoint.model ?? 'unknown'
  return { served: { name, id: name }, requestModel: endpoint.servedModelName ?? name }
}

/**
 * The tokenizer `id` (`--tokenizer`, else the served model's id), loaded through the chain with the
 * endpoint's `/tokenize` last; undefined when the run is stopped first. A tokenizer the user named
 * that loads from nowhere is an error: the server's `/tokenize` stands in only for the model's id.
 */
export async function tokenizerUnlessStopped(
  config: BenchConfig,
  id: string,
  requestModel: string,
  stop: AbortSignal | undefined,
): Promise<Tokenizer | undefined> {
  if (stop?.aborted) return undefined
  const { endpoint } = config
  const tokenizer = await untilAborted(
    loadTokenizer({
      id,
      named: config.tokenizer.id !== undefined,
      baseUrl: endpoint.baseUrl,
      model: requestModel,
      headers: endpointHeaders(endpoint),
      mode: config.tokenizer.mode,
      trustRemoteCode: config.tokenizer.trustRemoteCode,
      timeouts: config.request,
    }),
    stop,
  )
  return tokenizer === ABORTED ? undefined : tokenizer
}

/**
 * The ready check (`--ready-check-timeout-sec`, 0 skips it) with the run's first request, as Python
 * logs it. A stop ends it without an error: the run then writes what it measured (nothing).
 */
export async function checkReady(
  config: BenchConfig,
  sendFirst: (signal: AbortSignal) => Promise<RequestOutput>,
  stop: AbortSignal | undefined,
  log: (line: string) => void,
): Promise<void> {
  if (config.readyCheckTimeoutS <= 0) {
    log('Skipping endpoint ready check.')
    return
  }
  if (stop?.aborted) return
  log('Starting initial single prompt test run...')
  try {
    await waitForEndpoint(sendFirst, config.readyCheckTimeoutS, stop ? { signal: stop } : {})
  } catch (error) {
    if (!stop?.aborted) throw error
  }
  if (stop?.aborted) return
  log('Initial test run completed.')
}
