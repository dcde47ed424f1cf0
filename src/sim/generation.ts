import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { Rng } from '../rng.ts'
import type { SimContext } from './context.ts'
import type { EngineSequence } from './engine.ts'
import type { FinishReason } from './sim-metrics.ts'
import {
  type ChunkFormatter,
  type ChunkHeader,
  chatBody,
  completionBody,
  createChatFormatter,
  createCompletionFormatter,
  SSE_DONE,
  SSE_HEADERS,
} from './sse-writer.ts'
import { epochNowMs, type SimRequestTimings } from './timing-record.ts'

/** A validated completions or chat request, reduced to what the engine and writer need. */
export interface GenerationRequest {
  api: 'completions' | 'chat'
  /** The model name echoed in responses. */
  model: string
  /** One entry per choice: its prompt length, the text that seeds its words, and whether its prompt counts in usage. */
  choices: { promptTokens: number; seedKey: string; countsPrompt: boolean; tokenIds?: readonly number[] }[]
  /** Tokens per choice before `finish_reason: "length"`. */
  maxTokens: number
  ignoreEos: boolean
  stream: boolean
  includeUsage: boolean
  /** Streams another API's events (Responses, transcription) instead of the `api`'s chunks. */
  createFormatter?: (header: ChunkHeader) => StreamFormatter
}

/** A chunk formatter that may end its stream with something other than `data: [DONE]`. */
export type StreamFormatter = ChunkFormatter & { readonly terminal?: string }

interface ChoiceState {
  rng: Rng
  generated: number
  finishReason: FinishReason | null
  parts: string[]
}

/**
 * Runs one request through the engine and writes its response: SSE events as the engine
 * produces tokens, or the whole JSON body when the last token is produced.
 */
export function runGeneration(
  ctx: SimContext,
  request: GenerationRequest,
  res: ServerResponse,
  receivedAtPerfMs: number,
  record: SimRequestTimings | undefined,
): void {
  const header: ChunkHeader = {
    id: `${request.api === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID().replaceAll('-', '')}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
  }
  const formatter: StreamFormatter | undefined = request.stream
    ? request.createFormatter
      ? request.createFormatter(header)
      : request.api === 'chat'
        ? createChatFormatter(header)
        : createCompletionFormatter(header)
    : undefined
  const choices: ChoiceState[] = request.choices.map((c) => ({
    rng: ctx.words.rng(c.seedKey),
    generated: 0,
    finishReason: null,
    parts: [],
  }))
  const promptTokens = request.choices.reduce((sum, c) => sum + (c.countsPrompt ? c.promptTokens : 0), 0)
  const stopProbability = request.ignoreEos ? 0 : ctx.options.stopProbability
  let lastTokenAtMs = 0
  let finished = false

  const write = (event: string): void => {
    record?.eventSentAtMs.push(epochNowMs())
    res.write(event)
    // node:http corks a chunked response until the next tick, so a step writing many streams
    // would hold every event until its callback returns; flush now so the stamp is the send time.
    res.socket?.uncork()
  }

  const onToken = (): boolean => {
    const nowMs = performance.now()
    if (lastTokenAtMs === 0) {
      ctx.metrics.promptTokensTotal += promptTokens
      ctx.metrics.ttft.observe((nowMs - receivedAtPerfMs) / 1000)
    } else ctx.metrics.itl.observe((nowMs - lastTokenAtMs) / 1000)
    lastTokenAtMs = nowMs
    let open = 0
    for (let index = 0; index < choices.length; index++) {
      const choice = choices[index]!
      if (choice.finishReason !== null) continue
      if (choice.generated === 0 && formatter) {
        const preamble = formatter.preamble(index)
        if (preamble !== '') write(preamble)
      }
      // Speculative decoding: a step with accepted draft tokens produces several, sent as one event.
      const burst = ctx.metrics.specDecode?.draw() ?? 1
      let text = ''
      for (let k = 0; k < burst && choice.finishReason === null; k++) {
        choice.generated++
        ctx.metrics.generationTokensTotal++
        // The stop token is EOS: counted like vLLM counts it, but it has no text.
        const stop = stopProbability > 0 && choice.rng.next() < stopProbability
        text += stop ? '' : ctx.words.next(choice.rng)
        if (stop) choice.finishReason = 'stop'
        else if (choice.generated >= request.maxTokens) choice.finishReason = 'length'
      }
      if (choice.finishReason === null) open++
      if (formatter) write(formatter.token(index, text, choice.finishReason))
      else choice.parts.push(text)
    }
    if (open > 0) return false
    complete(nowMs)
    return true
  }

  const complete = (nowMs: number): void => {
    finished = true
    ctx.metrics.e2e.observe((nowMs - receivedAtPerfMs) / 1000)
    const usage = {
      promptTokens,
      completionTokens: choices.reduce((sum, c) => sum + c.generated, 0),
      ...(ctx.options.enablePromptTokensDetails ? { cachedTokens: cachedTokens ?? 0 } : {}),
    }
    if (formatter) {
      if (request.includeUsage) res.write(formatter.usage(usage))
      res.end(formatter.terminal ?? SSE_DONE)
      return
    }
    const finishedChoices = choices.map((c) => ({
      text: c.parts.join(''),
      finishReason: c.finishReason ?? 'length',
    }))
    const body =
      request.api === 'chat'
        ? chatBody(header, finishedChoices, usage)
        : completionBody(header, finishedChoices, usage)
    record?.eventSentAtMs.push(epochNowMs())
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(body)
  }

  // Prefix caching follows single-sequence requests only (see docs/simulator.md).
  const promptTokenIds = request.choices.length === 1 ? request.choices[0]!.tokenIds : undefined
  // vLLM reports the cache hit of the first admission (a preempted request may hit again).
  let cachedTokens: number | undefined
  const seq: EngineSequence = {
    promptTokens,
    width: choices.length,
    promptTokenIds,
    onToken,
    onCachedTokens: (tokens) => {
      cachedTokens ??= tokens
    },
  }
  // A success is a response handed over whole ('finish'); one reset by a fault or closed by the
  // client before that is an abort, even when the engine had generated every token.
  let delivered = false
  res.on('finish', () => {
    delivered = true
    ctx.counters.requestsFinished++
    for (const choice of choices) ctx.metrics.requestSuccessTotal[choice.finishReason ?? 'length']++
  })
  res.on('close', () => {
    if (delivered) return
    ctx.counters.requestsAborted++
    if (finished) return
    finished = true
    ctx.engine.abort(seq)
  })
  if (request.stream) {
    res.writeHead(200, SSE_HEADERS)
    res.flushHeaders()
  }
  ctx.engine.submit(seq, receivedAtPerfMs)
}
