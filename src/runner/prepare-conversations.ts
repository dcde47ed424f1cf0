/**
 * The prepare stage of `--multi-turn`: the served model, the tokenizer, the conversations of the
 * dataset's module (fitted to `--max-model-len`), the adapter of each conversation, the turn sender
 * (`X-Session-ID`) and the ready check. As for independent requests, every phase gives way to the
 * run's signal: a run stopped here prepares no conversations, sends nothing and writes an empty
 * result. Rust: multi_turn.rs.
 */
import { HttpClient } from '../backends/http.ts'
import { getBackend } from '../backends/index.ts'
import type { BenchConfig, MultiTurnConfig, ResolvedHttpTransport } from '../config/bench-config.ts'
import type { ChatMessage, RequestOutput, SampleRequest } from '../config/records.ts'
import type { Conversation } from '../datasets/conversation.ts'
import { isNoHistory } from '../datasets/random/multi-turn.ts'
import { fitConversations } from '../datasets/random/multi-turn-filter.ts'
import { moduleOf } from '../datasets/registry.ts'
import type { Tokenizer } from '../tokenizer/index.ts'
import { withFields } from '../with-fields.ts'
import { assignLoraModules } from './lora.ts'
import {
  checkReady,
  requestBuilder,
  servedModelUnlessStopped,
  tokenizerUnlessStopped,
} from './request-builder.ts'
import type { RunHooks } from './run-types.ts'
import { ABORTED, untilAborted } from './signals.ts'

/** One turn to send: its conversation and index (-1: the probe), the messages so far, and its lengths. */
export interface TurnRequest {
  conversation: Conversation
  turn: number
  /** The history the turn is sent with, this turn's user message last. */
  messages: ChatMessage[]
  text: string
  promptLen: number
  outputLen: number
}

/** What a multi-turn run prepared. */
export interface PreparedConversations {
  kind: 'conversations'
  config: BenchConfig
  multiTurn: MultiTurnConfig
  /** Empty when the run was stopped before they were built. */
  conversations: Conversation[]
  /** Each turn is sent alone, without the history (`--multi-turn-no-history` tiers). */
  noHistory: boolean
  totalTurns: number
  /** Turns in flight at once, across conversations. */
  concurrency: number
  /** Counts a turn's output tokens when the server reports no usage; absent when the run was stopped first. */
  tokenizer?: Tokenizer
  /** `model_id` of the result. */
  modelId: string
  /** What carries the streamed turns: `--http-transport` as the HTTP client resolved it. */
  httpTransport: ResolvedHttpTransport
  /** Sends one turn with `X-Session-ID` set to its conversation's id; `signal` aborts it. */
  send(turn: TurnRequest, signal: AbortSignal): Promise<RequestOutput>
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
  const dataset = moduleOf(config.dataset)
  if (!dataset.conversations) {
    throw new Error(`${dataset.kind} has no conversations for --multi-turn. This is a bug in servebench.`)
  }
  const log = hooks.log ?? (() => {})
  const stop = hooks.signal
  const endpoint = config.endpoint
  const { served, requestModel } = await servedModelUnlessStopped(config, stop)
  const tokenizer = await tokenizerUnlessStopped(config, config.tokenizer.id ?? served.id, requestModel, stop)
  const noHistory = isNoHistory(multiTurn)
  const built =
    tokenizer === undefined || stop?.aborted
      ? ABORTED
      : await untilAborted(
          dataset.conversations(config.dataset, multiTurn, {
            tokenizer,
            numConversations: config.numPrompts,
            seed: config.seed,
            requestIdPrefix: config.request.requestIdPrefix,
          }),
          stop,
        )
  const conversations = built === ABORTED ? [] : fitConversations(built, config.maxModelLen, noHistory, log)
  const totalTurns = conversations.reduce((n, c) => n + c.turns.length, 0)
  const concurrency = multiTurn.concurrency ?? config.load.maxConcurrency ?? config.numPrompts
  // LoRA (Rust): one adapter per conversation, sticky across its turns.
  const loraModels = config.lora
    ? assignLoraModules(config.lora, conversations.length, config.seed)
    : undefined
  const modelOf = new Map(conversations.map((conv, c) => [conv, loraModels?.[c] ?? requestModel]))
  const backend = getBackend(endpoint.backend)
  const client =
    hooks.httpClient ??
    new HttpClient({
      connections: concurrency,
      insecure: endpoint.insecure,
      transport: endpoint.httpTransport,
    })
  const close = (): Promise<void> => (hooks.httpClient ? Promise.resolve() : client.close())
  const toRequest = requestBuilder(config, requestModel)
  // Without ignore_eos, min_tokens keeps the output length under control (Rust), unless the body sets it.
  const body = { ...config.request.sampling, ...config.request.extraBody }
  const minTokens = !config.request.ignoreEos && !('min_tokens' in body)
  const send = (t: TurnRequest, signal: AbortSignal): Promise<RequestOutput> => {
    const turn: SampleRequest = {
      prompt: t.text,
      promptLen: t.promptLen,
      expectedOutputLen: t.outputLen,
      chatMessages: t.messages,
      ...(minTokens ? { requestOverrides: { min_tokens: t.outputLen } } : {}),
    }
    const request = toRequest(turn, `${t.conversation.id}-turn${t.turn}`, {
      model: modelOf.get(t.conversation) ?? requestModel,
      headers: { 'X-Session-ID': t.conversation.id },
    })
    return backend.send(withFields(request, { signal }), client)
  }
  try {
    const conversation = conversations[0]
    const first = conversation?.turns[0]
    if ((!first || !conversation) && !stop?.aborted)
      throw new Error('multi-turn: no conversations. This is a bug in servebench.')
    // A message alone: the first turn for the ready check, "Hi" for the probe.
    const alone = (text: string, promptLen: number, outputLen: number, turn: number): TurnRequest => ({
      conversation: conversation ?? { id: `${config.request.requestIdPrefix}conv-0`, turns: [] },
      turn,
      messages: [userMessage(text)],
      text,
      promptLen,
      outputLen,
    })
    // A multi-turn run prints nothing about a skipped ready check (Rust's output).
    if (first && config.readyCheckTimeoutS > 0) {
      await checkReady(
        config,
        (signal) => send(alone(first.message, first.messageLen, first.expectedOutputLen, 0), signal),
        stop,
        log,
      )
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
      ...(tokenizer ? { tokenizer } : {}),
      modelId: served.id,
      httpTransport: client.transport,
      send,
      sendProbe: (signal) => send(alone('Hi', 1, 1, -1), signal),
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
