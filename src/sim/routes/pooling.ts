import { createHash, randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { SimContext } from '../context.ts'
import type { EngineSequence } from '../engine.ts'
import { epochNowMs } from '../timing-record.ts'
import { chatPromptText } from './chat.ts'
import { isTokenIds, parseJsonObject, readBody, SimHttpError, sendJson } from './http.ts'

/** Length of the simulated embedding vectors. */
export const SIM_EMBEDDING_DIM = 8

type PoolingApi = 'embeddings' | 'pooling' | 'rerank'

/** One validated pooling request: its inputs' token counts and how to answer once they are prefilled. */
interface PoolingRequest {
  model: string
  /** Tokens of each input (rerank: query + document of each pair). */
  inputTokens: number[]
  respond(): unknown
}

/**
 * `POST /v1/embeddings`, `/pooling`, `/v1/rerank` (also `/rerank`, `/v2/rerank`). A pooling request
 * costs its prefill: it enters the engine as one sequence of all its input tokens and is answered,
 * in one JSON body, in the step that would produce its first token (in fixed timing: `ttftMs` after
 * the body was read). Embeddings are deterministic per input text.
 * vLLM: vllm/entrypoints/openai/serving_embedding.py, serving_pooling.py, serving_score.py.
 */
export function poolingHandler(
  ctx: SimContext,
  api: PoolingApi,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const text = await readBody(req)
    const receivedAtPerfMs = performance.now()
    ctx.counters.requestsReceived++
    const body = parseJsonObject(text)
    const request = api === 'rerank' ? parseRerank(ctx, body) : parseEmbeddingInputs(ctx, body, api)
    const header = req.headers['x-request-id']
    const requestId = typeof header === 'string' && header !== '' ? header : `sim-${ctx.nextRequestNumber()}`
    if (typeof header === 'string') res.setHeader('x-request-id', header)
    const record = ctx.timings?.start(requestId, req.url ?? '', performance.timeOrigin + receivedAtPerfMs)
    const promptTokens = request.inputTokens.reduce((sum, n) => sum + n, 0)
    let finished = false
    const seq: EngineSequence = {
      promptTokens,
      width: 1,
      onToken: () => {
        const nowMs = performance.now()
        finished = true
        ctx.counters.requestsFinished++
        ctx.metrics.promptTokensTotal += promptTokens
        ctx.metrics.e2e.observe((nowMs - receivedAtPerfMs) / 1000)
        record?.eventSentAtMs.push(epochNowMs())
        const encoding = api === 'rerank' ? undefined : body.encoding_format
        if (encoding === 'bytes' || encoding === 'bytes_only') sendBytes(res, request.respond(), encoding)
        else sendJson(res, 200, request.respond())
        return true
      },
    }
    res.on('close', () => {
      if (finished) return
      finished = true
      ctx.counters.requestsAborted++
      ctx.engine.abort(seq)
    })
    ctx.engine.submit(seq, receivedAtPerfMs)
  }
}

/**
 * vLLM's binary answers: the vectors as little-endian float32 in one `application/octet-stream`
 * body; with `bytes`, the rest of the JSON answer (ids, per-item metadata, `usage`) goes in the
 * `metadata` header, with `bytes_only` nothing does.
 */
function sendBytes(res: ServerResponse, answer: unknown, encoding: 'bytes' | 'bytes_only'): void {
  const { data, ...rest } = answer as { data: Array<Record<string, unknown>> }
  const vectors = data.map((item) => (item.embedding ?? item.data) as number[])
  const body = Buffer.from(Float32Array.from(vectors.flat()).buffer)
  const headers: Record<string, string | number> = {
    'content-type': 'application/octet-stream',
    'content-length': body.byteLength,
  }
  if (encoding === 'bytes') {
    const items = data.map(({ embedding: _e, data: _d, ...item }) => ({
      ...item,
      shape: [SIM_EMBEDDING_DIM],
    }))
    headers.metadata = JSON.stringify({ ...rest, data: items })
  }
  res.writeHead(200, headers)
  res.end(body)
}

function modelOf(ctx: SimContext, body: Record<string, unknown>): string {
  return typeof body.model === 'string' && body.model !== '' ? body.model : ctx.options.model
}

/** `input` (string, strings, token ids, lists of token ids) or, for embeddings, chat `messages`. */
function parseEmbeddingInputs(
  ctx: SimContext,
  body: Record<string, unknown>,
  api: 'embeddings' | 'pooling',
): PoolingRequest {
  const encode = (text: string): number => ctx.options.tokenizer.encode(text).length
  let inputs: Array<{ key: string; tokens: number }>
  if (api === 'embeddings' && body.messages !== undefined && body.input === undefined) {
    const text = chatPromptText(body.messages)
    inputs = [{ key: text, tokens: encode(text) }]
  } else {
    const input = body.input
    if (typeof input === 'string') inputs = [{ key: input, tokens: encode(input) }]
    else if (isTokenIds(input)) inputs = [{ key: input.join(','), tokens: input.length }]
    else if (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === 'string')) {
      inputs = (input as string[]).map((text) => ({ key: text, tokens: encode(text) }))
    } else if (Array.isArray(input) && input.length > 0 && input.every(isTokenIds)) {
      inputs = (input as number[][]).map((ids) => ({ key: ids.join(','), tokens: ids.length }))
    } else {
      throw new SimHttpError(
        400,
        'input must be a string, a list of strings, a list of token ids or a list of token-id lists',
        'input',
      )
    }
  }
  checkLengths(
    ctx,
    inputs.map((i) => i.tokens),
  )
  const model = modelOf(ctx, body)
  const promptTokens = inputs.reduce((sum, i) => sum + i.tokens, 0)
  const usage = { prompt_tokens: promptTokens, total_tokens: promptTokens, completion_tokens: 0 }
  return {
    model,
    inputTokens: inputs.map((i) => i.tokens),
    respond: () => ({
      id: `${api === 'embeddings' ? 'embd' : 'pool'}-${randomUUID().replaceAll('-', '')}`,
      object: 'list',
      created: Math.floor(Date.now() / 1000),
      model,
      data: inputs.map((input, index) =>
        api === 'embeddings'
          ? { index, object: 'embedding', embedding: vectorOf(input.key) }
          : { index, object: 'pooling', data: vectorOf(input.key) },
      ),
      usage,
    }),
  }
}

/** `{query, documents}`: each document is scored as one query–document pair. */
function parseRerank(ctx: SimContext, body: Record<string, unknown>): PoolingRequest {
  const { query, documents } = body
  if (typeof query !== 'string') throw new SimHttpError(400, 'query: Field required (a string)', 'query')
  if (!Array.isArray(documents) || !documents.every((d) => typeof d === 'string')) {
    throw new SimHttpError(400, 'documents: Field required (a list of strings)', 'documents')
  }
  const docs = documents as string[]
  const queryTokens = ctx.options.tokenizer.encode(query).length
  const pairTokens = docs.map((doc) => queryTokens + ctx.options.tokenizer.encode(doc).length)
  checkLengths(ctx, pairTokens)
  const model = modelOf(ctx, body)
  const total = pairTokens.reduce((sum, n) => sum + n, 0)
  return {
    model,
    inputTokens: pairTokens,
    respond: () => ({
      id: `rerank-${randomUUID().replaceAll('-', '')}`,
      model,
      // vLLM's RerankUsage has only total_tokens.
      usage: { total_tokens: total },
      results: docs
        .map((text, index) => ({ index, document: { text }, relevance_score: scoreOf(query, text) }))
        .sort((a, b) => b.relevance_score - a.relevance_score),
    }),
  }
}

function checkLengths(ctx: SimContext, tokens: number[]): void {
  const { maxModelLen } = ctx.options
  for (const n of tokens) {
    if (n > maxModelLen) {
      throw new SimHttpError(
        400,
        `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${n} tokens in the input. Please reduce the length of the input.`,
      )
    }
  }
}

/** A unit vector derived from the text's hash: the same text always embeds the same. */
function vectorOf(key: string): number[] {
  const digest = createHash('sha256').update(key).digest()
  const raw = Array.from({ length: SIM_EMBEDDING_DIM }, (_, i) => digest.readInt16LE(i * 2) / 32768)
  const norm = Math.hypot(...raw) || 1
  return raw.map((x) => x / norm)
}

function scoreOf(query: string, document: string): number {
  return (
    createHash('sha256').update(query).update('\u0000').update(document).digest().readUInt32LE(0) / 2 ** 32
  )
}
