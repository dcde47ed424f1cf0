import { setTimeout as sleep } from 'node:timers/promises'
import PQueue from 'p-queue'
import { HttpClient } from '../backends/http.ts'
import { getBackend } from '../backends/index.ts'
import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestOutput, RequestRecord } from '../config/records.ts'
import { generateShareGptConversations } from '../datasets/hub/multi-turn-sharegpt.ts'
import {
  type Conversation,
  generateMultiTurnConversations,
  isNoHistory,
} from '../datasets/random/multi-turn.ts'
import { fitConversations } from '../datasets/random/multi-turn-filter.ts'
import { calculateMetrics } from '../metrics/calculate.ts'
import { clientHealthJson } from '../report/client-keys.ts'
import { buildMultiTurnResult, type TurnRecord } from '../report/multi-turn.ts'
import { formatDate } from '../report/result-json.ts'
import { computeSchedule } from '../schedule/index.ts'
import { loadTokenizer } from '../tokenizer/index.ts'
import { type ClientHealthMonitor, startClientHealthMonitor } from './client-health.ts'
import { assignLoraModules } from './lora.ts'
import { endpointHeaders, resolveServedModel } from './model-info.ts'
import { countOutputTokens } from './output-tokens.ts'
import { waitForEndpoint } from './ready-check.ts'
import type { RunHooks, RunOutcome } from './run-benchmark.ts'
import { startRunExtras } from './run-extras.ts'

interface ChatMessage {
  role: 'user' | 'assistant'
  content: string | Array<{ type: 'text'; text: string }>
}

/**
 * `--multi-turn`: conversations run concurrently, each sending its turns in order with the history
 * so far, `X-Session-ID` set to the conversation id, and a think time between turns during which
 * no concurrency slot is held. Rust: multi_turn.rs (§4.12). Past Rust: conversation starts follow
 * `--request-rate` and `--burstiness` (inf starts them all at once, as Rust), and with
 * `continueOnFailure` a conversation goes on after a failed turn instead of stopping.
 */
export async function runMultiTurn(
  config: BenchConfig,
  hooks: RunHooks = {},
): Promise<Omit<RunOutcome, 'retries'>> {
  const multiTurn = config.multiTurn
  const dataset = config.dataset
  if (!multiTurn || (dataset.kind !== 'random' && dataset.kind !== 'sharegpt' && dataset.kind !== 'hf')) {
    throw new Error(
      'runMultiTurn needs a multi-turn config on the random, sharegpt or hf dataset. This is a bug in servebench.',
    )
  }
  const log = hooks.log ?? (() => {})
  const endpoint = config.endpoint
  const { served, requestModel } = await resolveServedModel(endpoint)
  const tokenizer = await loadTokenizer({
    id: config.tokenizer.id ?? served.id,
    named: config.tokenizer.id !== undefined,
    baseUrl: endpoint.baseUrl,
    model: requestModel,
    headers: endpointHeaders(endpoint),
    mode: config.tokenizer.mode,
    trustRemoteCode: config.tokenizer.trustRemoteCode,
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
  const client = hooks.httpClient ?? new HttpClient({ connections: concurrency, insecure: endpoint.insecure })
  const baseBody = { ...config.request.sampling, ...config.request.extraBody }
  const send = (
    conv: Conversation,
    turn: number,
    messages: ChatMessage[],
    text: string,
    promptLen: number,
    outputLen: number,
    signal?: AbortSignal,
  ): Promise<RequestOutput> => {
    // Without ignore_eos, min_tokens keeps the output length under control (Rust).
    const body: Record<string, unknown> = { ...baseBody }
    if (!config.request.ignoreEos && body.min_tokens === undefined) body.min_tokens = outputLen
    body.messages = messages
    return backend.send(
      {
        url,
        requestId: `${conv.id}-turn${turn}`,
        model: modelOf.get(conv) ?? requestModel,
        prompt: text,
        promptLen,
        outputLen,
        ignoreEos: config.request.ignoreEos,
        extraBody: body,
        headers: { ...endpoint.headers, 'X-Session-ID': conv.id },
        ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
        ...(config.request.timeoutS !== undefined ? { timeoutS: config.request.timeoutS } : {}),
        ...(config.request.readTimeoutS !== undefined ? { readTimeoutS: config.request.readTimeoutS } : {}),
        ...(signal ? { signal } : {}),
      },
      client,
    )
  }

  let monitor: ClientHealthMonitor | undefined
  try {
    const first = conversations[0]?.turns[0]
    if (!first || !conversations[0])
      throw new Error('multi-turn: no conversations. This is a bug in servebench.')
    if (config.readyCheckTimeoutS > 0) {
      log('Starting initial single prompt test run...')
      await waitForEndpoint(
        (signal) =>
          send(
            conversations[0]!,
            0,
            [userMessage(first.message)],
            first.message,
            first.messageLen,
            first.expectedOutputLen,
            signal,
          ),
        config.readyCheckTimeoutS,
        hooks.signal ? { signal: hooks.signal } : {},
      )
      log('Initial test run completed.')
    }
    log(
      `Starting multi-turn benchmark: ${conversations.length} conversations, ${totalTurns} turns, concurrency ${concurrency}`,
    )
    const extras = await startRunExtras({
      config,
      isPooling: false,
      log,
      sendProbe: (signal) => send(conversations[0]!, -1, [userMessage('Hi')], 'Hi', 1, 1, signal),
    })
    const queue = new PQueue({ concurrency })
    const schedule = computeSchedule(conversations.length, config.load, config.seed)
    const turnRecords: TurnRecord[] = []
    const durationsMs: number[] = new Array(conversations.length).fill(0)
    let done = 0
    const aborted = (): boolean => hooks.signal?.aborted === true
    monitor = config.clientCheck === 'off' ? undefined : startClientHealthMonitor()
    // The dispatch lag of a multi-turn run: how late each conversation started against its schedule.
    const startLagsMs: number[] = []
    const startS = performance.now() / 1000

    const runConversation = async (conv: Conversation, c: number): Promise<void> => {
      const waitMs = (startS + schedule.offsetsS[c]!) * 1000 - performance.now()
      if (waitMs > 1) await sleepUnlessAborted(waitMs, hooks.signal)
      const convStartMs = performance.now()
      if (!aborted()) startLagsMs.push(convStartMs - (startS + schedule.offsetsS[c]!) * 1000)
      const history: ChatMessage[] = []
      let cumulative = 0
      for (let t = 0; t < conv.turns.length && !aborted(); t++) {
        if (t > 0 && multiTurn.delayMs > 0) await sleepUnlessAborted(multiTurn.delayMs, hooks.signal)
        if (aborted()) break
        const turn = conv.turns[t]!
        const messages = noHistory ? [userMessage(turn.message)] : [...history, userMessage(turn.message)]
        const promptLen = noHistory ? turn.messageLen : cumulative + turn.messageLen
        const arrivalTimeS = performance.now() / 1000
        // Once interrupted, turns still waiting for a slot are not sent.
        const output = await queue.add(async () =>
          aborted() ? undefined : send(conv, t, messages, turn.message, promptLen, turn.expectedOutputLen),
        )
        if (!output) break
        const outputLen = output.success
          ? (output.outputTokens ?? (await countOutputTokens(output.generatedText, tokenizer)))
          : 0
        turnRecords.push({
          conversationId: conv.id,
          conversationIndex: c,
          turnIndex: t,
          record: {
            ...output,
            requestId: `${conv.id}-turn${t}`,
            outputLen,
            arrivalTimeS,
            queueTimeS: Math.max(0, output.startTimeS - arrivalTimeS),
          },
        })
        hooks.onRequestEnd?.(++done, totalTurns)
        if (output.success) {
          if (!noHistory) {
            history.push(userMessage(turn.message), { role: 'assistant', content: output.generatedText })
            cumulative += turn.messageLen + outputLen
          }
        } else if (!multiTurn.continueOnFailure) break
      }
      durationsMs[c] = performance.now() - convStartMs
    }
    await Promise.all(conversations.map((conv, c) => runConversation(conv, c)))
    const endS = performance.now() / 1000
    const clientHealth = monitor?.stop(startLagsMs)
    const durationS = endS - startS

    turnRecords.sort((a, b) => a.conversationIndex - b.conversationIndex || a.turnIndex - b.turnIndex)
    const records: RequestRecord[] = turnRecords.map((t) => t.record)
    const extra = await extras.finish({ startS, durationS, records, ratesPerS: [] })
    const metricsOf = (rs: readonly RequestRecord[]) =>
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
      const rs = turnRecords.filter((r) => r.turnIndex === t).map((r) => r.record)
      return { turnIndex: t, records: rs, metrics: metricsOf(rs) }
    }).filter((t) => t.records.length > 0)
    const result = buildMultiTurnResult({
      date: formatDate(new Date()),
      backend: endpoint.backend,
      modelId: served.id,
      numConversations: config.numPrompts,
      ...(config.maxModelLen !== undefined ? { maxModelLen: config.maxModelLen } : {}),
      turnsPerConversation: multiTurn.numTurns,
      concurrency,
      delayMs: multiTurn.delayMs,
      requestRate: config.load.requestRate,
      burstiness: config.load.burstiness,
      continueOnFailure: multiTurn.continueOnFailure,
      ...(noHistory
        ? { prefix: { global: multiTurn.prefixGlobalRatio, conversation: multiTurn.prefixConversationRatio } }
        : {}),
      metadata: config.metadata,
      conversationTurns: conversations.map((c) => c.turns.length),
      conversationDurationsMs: durationsMs,
      turns: turnRecords,
      overall: metricsOf(records),
      perTurn,
      extra: extra.extra,
    })
    // Servebench's key, after the Rust keys (and before `interrupted`), as in single runs.
    if (clientHealth) result.client_health = clientHealthJson(clientHealth)
    return {
      result,
      records,
      task: 'generation',
      interrupted: aborted(),
      ...(clientHealth ? { clientHealth } : {}),
    }
  } finally {
    monitor?.dispose()
    if (!hooks.httpClient) await client.close()
  }
}

function userMessage(text: string): ChatMessage {
  return { role: 'user', content: [{ type: 'text', text }] }
}

async function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, signal ? { signal } : undefined)
  } catch {
    // Aborted: the caller checks the signal.
  }
}
