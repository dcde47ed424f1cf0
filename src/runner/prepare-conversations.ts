/**
 * The prepare stage of `--multi-turn`: the served model, the tokenizer, the conversations (fitted to
 * `--max-model-len`), the adapter of each conversation and the ready check. Rust: multi_turn.rs (§4.12).
 */
import { HttpClient } from '../backends/http.ts'
import { getBackend } from '../backends/index.ts'
import type { BenchConfig, MultiTurnConfig, ResolvedHttpTransport } from '../config/bench-config.ts'
import type { RequestOutput } from '../config/records.ts'
import { generateShareGptConversations } from '../datasets/hub/multi-turn-sharegpt.ts'
import {
  type Conversation,
  generateMultiTurnConversations,
  isNoHistory,
} from '../datasets/random/multi-turn.ts'
import { fitConversations } from '../datasets/random/multi-turn-filter.ts'
import { loadTokenizer, type Tokenizer } from '../tokenizer/index.ts'
import { assignLoraModules } from './lora.ts'
import { endpointHeaders, lookupTimeoutMs, resolveServedModel } from './model-info.ts'
import { waitForEndpoint } from './ready-check.ts'
import type { RunHooks } from './run-types.ts'

/** A message of a conversation's history, as the chat API takes it. */
export interface ChatMessage {
  role: 'user' | 'assistant'
  content: string | Array<{ type: 'text'; text: string }>
}

/** One turn to send: its conversation and index, the messages so far, and its lengths. */
export interface TurnRequest {
  conversation: Conversation
  turn: number
  messages: ChatMessage[]
  text: string
  promptLen: number
  outputLen: number
  signal?: AbortSignal
}

/** What a multi-turn run prepared. */
export interface PreparedConversations {
  kind: 'conversations'
  config: BenchConfig
  multiTurn: MultiTurnConfig
  conversations: Conversation[]
  /** Each turn is sent alone, without the history (`--multi-turn-no-history` tiers). */
  noHistory: boolean
  totalTurns: number
  /** Turns in flight at once, across conversations. */
  concurrency: number
  tokenizer: Tokenizer
  /** `model_id` of the result. */
  modelId: string
  /** What carries the streamed turns: `--http-transport` as the HTTP client resolved it. */
  httpTransport: ResolvedHttpTransport
  /** Sends one turn with `X-Session-ID` set to its conversation's id. */
  send(turn: TurnRequest): Promise<RequestOutput>
  /** Python's probe request (`"Hi"`, one output token), in the first conversation's session. */
  sendProbe(signal: AbortSignal): Promise<RequestOutput>
  log(line: string): void
  /** Closes the HTTP client when the run created it. */
  close(): Promise<void>
}

/** Prepares a `--multi-turn` run; the caller closes it. */
export async function prepareConversations(
  config: BenchConfig,
  multiTurn: MultiTurnConfig,
  hooks: RunHooks,
): Promise<PreparedConversations> {
  const dataset = config.dataset
  if (dataset.kind !== 'random' && dataset.kind !== 'sharegpt' && dataset.kind !== 'hf') {
    throw new Error('A multi-turn run needs the random, sharegpt or hf dataset. This is a bug in servebench.')
  }
  const log = hooks.log ?? (() => {})
  const endpoint = config.endpoint
  const { served, requestModel } = await resolveServedModel(endpoint, lookupTimeoutMs(config.request))
  const tokenizer = await loadTokenizer({
    id: config.tokenizer.id ?? served.id,
    named: config.tokenizer.id !== undefined,
    baseUrl: endpoint.baseUrl,
    model: requestModel,
    headers: endpointHeaders(endpoint),
    mode: config.tokenizer.mode,
    trustRemoteCode: config.tokenizer.trustRemoteCode,
    timeouts: config.request,
  })
  const datasetContext = {
    tokenizer,
    numConversations: config.numPrompts,
    seed: config.seed,
    requestIdPrefix: config.request.requestIdPrefix,
  }
  const noHistory = isNoHistory(multiTurn)
  const conversations = fitConversations(
    dataset.kind === 'random'
      ? await generateMultiTurnConversations(dataset, multiTurn, datasetContext)
      : await generateShareGptConversations(dataset, multiTurn, datasetContext),
    config.maxModelLen,
    noHistory,
    log,
  )
  const totalTurns = conversations.reduce((n, c) => n + c.turns.length, 0)
  const concurrency = multiTurn.concurrency ?? config.load.maxConcurrency ?? config.numPrompts
  // LoRA (Rust): one adapter per conversation, sticky across its turns.
  const loraModels = config.lora
    ? assignLoraModules(config.lora, conversations.length, config.seed)
    : undefined
  const modelOf = new Map(conversations.map((conv, c) => [conv, loraModels?.[c] ?? requestModel]))
  const backend = getBackend(endpoint.backend)
  const url = `${endpoint.baseUrl}${endpoint.endpointPath}`
  const client =
    hooks.httpClient ??
    new HttpClient({
      connections: concurrency,
      insecure: endpoint.insecure,
      transport: endpoint.httpTransport,
    })
  const close = (): Promise<void> => (hooks.httpClient ? Promise.resolve() : client.close())
  const baseBody = { ...config.request.sampling, ...config.request.extraBody }
  const send = (t: TurnRequest): Promise<RequestOutput> => {
    // Without ignore_eos, min_tokens keeps the output length under control (Rust).
    const body: Record<string, unknown> = { ...baseBody }
    if (!config.request.ignoreEos && body.min_tokens === undefined) body.min_tokens = t.outputLen
    body.messages = t.messages
    return backend.send(
      {
        url,
        requestId: `${t.conversation.id}-turn${t.turn}`,
        model: modelOf.get(t.conversation) ?? requestModel,
        prompt: t.text,
        promptLen: t.promptLen,
        outputLen: t.outputLen,
        ignoreEos: config.request.ignoreEos,
        extraBody: body,
        headers: { ...endpoint.headers, 'X-Session-ID': t.conversation.id },
        ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
        ...(config.request.timeoutS !== undefined ? { timeoutS: config.request.timeoutS } : {}),
        ...(config.request.readTimeoutS !== undefined ? { readTimeoutS: config.request.readTimeoutS } : {}),
        ...(t.signal ? { signal: t.signal } : {}),
      },
      client,
    )
  }
  try {
    const conversation = conversations[0]
    const first = conversation?.turns[0]
    if (!first || !conversation) throw new Error('multi-turn: no conversations. This is a bug in servebench.')
    if (config.readyCheckTimeoutS > 0) {
      log('Starting initial single prompt test run...')
      await waitForEndpoint(
        (signal) =>
          send({
            conversation,
            turn: 0,
            messages: [userMessage(first.message)],
            text: first.message,
            promptLen: first.messageLen,
            outputLen: first.expectedOutputLen,
            signal,
          }),
        config.readyCheckTimeoutS,
        hooks.signal ? { signal: hooks.signal } : {},
      )
      log('Initial test run completed.')
    }
    log(
      `Starting multi-turn benchmark: ${conversations.length} conversations, ${totalTurns} turns, concurrency ${concurrency}`,
    )
    return {
      kind: 'conversations',
      config,
      multiTurn,
      conversations,
      noHistory,
      totalTurns,
      concurrency,
      tokenizer,
      modelId: served.id,
      httpTransport: client.transport,
      send,
      sendProbe: (signal) =>
        send({
          conversation,
          turn: -1,
          messages: [userMessage('Hi')],
          text: 'Hi',
          promptLen: 1,
          outputLen: 1,
          signal,
        }),
      log,
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}

/** A user message of the history: one text part. */
export function userMessage(text: string): ChatMessage {
  return { role: 'user', content: [{ type: 'text', text }] }
}
