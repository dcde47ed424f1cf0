/**
 * One engine of the simulator with the HTTP routes in front of it: the whole simulator when it has
 * one engine, one engine process of a data-parallel one. The routes that answer for the whole
 * simulator ask every engine through {@link SimPeers}.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { SimContext, SimCounters } from './context.ts'
import { createEngine } from './engine.ts'
import type { EngineAnswers, EngineAsk, SimPeers } from './engine-peers.ts'
import { applyFaultPlan } from './fault-response.ts'
import { FaultInjector, type ResolvedFault } from './faults.ts'
import { runGeneration } from './generation.ts'
import { renderFamilies } from './metric-families.ts'
import type { ResolvedSimOptions } from './options.ts'
import { parseChatRequest } from './routes/chat.ts'
import { parseCompletionsRequest } from './routes/completions.ts'
import { faultRoutes } from './routes/control.ts'
import { parseJsonObject, readBody, SimHttpError, sendError, sendJson } from './routes/http.ts'
import { metricFamilies, modelsResponse, versionResponse } from './routes/info.ts'
import { poolingHandler } from './routes/pooling.ts'
import { parseResponsesRequest } from './routes/responses.ts'
import { detokenizeResponse, tokenizeResponse } from './routes/tokenize.ts'
import { transcriptionHandler } from './routes/transcription.ts'
import { SimMetrics } from './sim-metrics.ts'
import type { SimStats } from './sim-stats.ts'
import { SpecDecodeSim } from './spec-decode.ts'
import { TimingRecorder } from './timing-record.ts'
import { createWordSource } from './words.ts'

/** One engine and its routes. */
export interface SimNode {
  /** Answers one HTTP request. */
  handle(req: IncomingMessage, res: ServerResponse): void
  /** This engine's own answer to an ask made on behalf of every engine. */
  answer<A extends EngineAsk>(ask: A): EngineAnswers[A['kind']]
  faults(): ResolvedFault[]
  close(): void
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void

// Routes that stay open when an API key is set: probes and scraping.
const OPEN_PATHS = new Set(['/health', '/ping', '/version', '/metrics'])

/**
 * Engine `engine` of `engines` (0 of 1 for a simulator of one engine), its routes reaching every
 * engine through `peers` (given once the node exists, so a node of one engine can be its own peer).
 */
export function createSimNode(
  resolved: ResolvedSimOptions,
  where: { engine: number; engines: number; peers: (node: SimNode) => SimPeers },
): SimNode {
  const counters: SimCounters = {
    requestsReceived: 0,
    requestsFinished: 0,
    requestsAborted: 0,
    requestsByModel: {},
  }
  const engine = createEngine(resolved)
  let requestNumber = 0
  const ctx: SimContext = {
    options: resolved,
    engine,
    metrics: new SimMetrics(),
    timings: resolved.recordTimings ? new TimingRecorder() : undefined,
    words: createWordSource(resolved.tokenizer, resolved.seed),
    counters,
    faults: new FaultInjector(resolved.seed, resolved.faults),
    // Unique over every engine: engine i of n numbers its requests i+n, i+2n, … (one engine: 1, 2, …).
    nextRequestNumber: () => ++requestNumber * where.engines + where.engine,
  }
  if (resolved.specDecode) {
    const { numTokens, acceptanceRate } = resolved.specDecode
    ctx.metrics.specDecode = new SpecDecodeSim(numTokens, acceptanceRate, resolved.seed)
  }
  const stats = (): SimStats => ({
    ...counters,
    requestsByModel: { ...counters.requestsByModel },
    running: engine.runningCount(),
    waiting: engine.waitingCount(),
    promptTokensTotal: ctx.metrics.promptTokensTotal,
    generationTokensTotal: ctx.metrics.generationTokensTotal,
    stepLag: engine.lag(),
  })
  const answers: { [K in EngineAsk['kind']]: (ask: Extract<EngineAsk, { kind: K }>) => EngineAnswers[K] } = {
    metrics: () => metricFamilies(ctx, where.engine),
    stats,
    timings: () => ctx.timings?.list() ?? [],
    'clear-timings': () => {
      ctx.timings?.clear()
      return null
    },
    'reset-prefix-cache': () => {
      engine.resetPrefixCache()
      return null
    },
    'set-faults': (ask) => {
      ctx.faults.set(ask.faults)
      return null
    },
  }
  const node: SimNode = {
    handle: (req, res) => void dispatch(ctx, routes, req, res),
    answer: <A extends EngineAsk>(ask: A) =>
      (answers[ask.kind] as unknown as (ask: A) => EngineAnswers[A['kind']])(ask),
    faults: () => ctx.faults.list(),
    close: () => engine.close(),
  }
  const routes = createRoutes(ctx, where.peers(node), Math.floor(Date.now() / 1000))
  return node
}

/** The HTTP server in front of `node`: long keep-alive, no request timeout, no Nagle delay on any socket. */
export function createNodeServer(node: SimNode): Server {
  const server = createServer({ noDelay: true, keepAliveTimeout: 65_000, requestTimeout: 0 }, node.handle)
  server.headersTimeout = 70_000
  // Also the sockets a data-parallel primary hands over, which arrive as 'connection' events.
  server.on('connection', (socket) => socket.setNoDelay(true))
  return server
}

function createRoutes(
  ctx: SimContext,
  peers: SimPeers,
  startedAtS: number,
): Map<string, Partial<Record<string, Handler>>> {
  const empty: Handler = (_req, res) => {
    res.writeHead(200, { 'content-length': 0 })
    res.end()
  }
  const json =
    (build: (body: Record<string, unknown>) => unknown): Handler =>
    async (req, res) => {
      const body = parseJsonObject(await readBody(req))
      sendJson(res, 200, build(body))
    }
  const generate =
    (parse: typeof parseChatRequest): Handler =>
    async (req, res) => {
      const text = await readBody(req)
      const receivedAtPerfMs = performance.now()
      const receivedAtMs = performance.timeOrigin + receivedAtPerfMs
      ctx.counters.requestsReceived++
      if (!(await applyFaultPlan(ctx.faults.next(), res))) return
      const request = parse(ctx, parseJsonObject(text))
      const header = req.headers['x-request-id']
      const requestId =
        typeof header === 'string' && header !== '' ? header : `sim-${ctx.nextRequestNumber()}`
      if (typeof header === 'string') res.setHeader('x-request-id', header)
      const record = ctx.timings?.start(requestId, req.url ?? '', receivedAtMs)
      runGeneration(ctx, request, res, receivedAtPerfMs, record)
    }
  return new Map<string, Partial<Record<string, Handler>>>([
    ['/health', { GET: empty }],
    ['/ping', { GET: empty, POST: empty }],
    // vLLM's profiler endpoints (`--profile`); the simulator has nothing to profile.
    ['/start_profile', { POST: empty }],
    ['/stop_profile', { POST: empty }],
    // vLLM serves it with VLLM_SERVER_DEV_MODE=1 (`--reset-prefix-cache`); every engine forgets.
    [
      '/reset_prefix_cache',
      {
        POST: async (req, res) => {
          await peers.all({ kind: 'reset-prefix-cache' })
          empty(req, res)
        },
      },
    ],
    ['/version', { GET: (_req, res) => sendJson(res, 200, versionResponse()) }],
    ['/v1/models', { GET: (_req, res) => sendJson(res, 200, modelsResponse(ctx, startedAtS)) }],
    ['/v1/completions', { POST: generate(parseCompletionsRequest) }],
    ['/v1/chat/completions', { POST: generate(parseChatRequest) }],
    ['/v1/responses', { POST: generate(parseResponsesRequest) }],
    ['/v1/audio/transcriptions', { POST: transcriptionHandler(ctx) }],
    ['/v1/audio/translations', { POST: transcriptionHandler(ctx) }],
    ['/v1/embeddings', { POST: poolingHandler(ctx, 'embeddings') }],
    ['/pooling', { POST: poolingHandler(ctx, 'pooling') }],
    ['/rerank', { POST: poolingHandler(ctx, 'rerank') }],
    ['/v1/rerank', { POST: poolingHandler(ctx, 'rerank') }],
    ['/v2/rerank', { POST: poolingHandler(ctx, 'rerank') }],
    [
      '/servebench/faults',
      faultRoutes(ctx, (faults) => peers.all({ kind: 'set-faults', faults }).then(() => {})),
    ],
    ['/tokenize', { POST: json((body) => tokenizeResponse(ctx, body)) }],
    ['/detokenize', { POST: json((body) => detokenizeResponse(ctx, body)) }],
    [
      '/metrics',
      {
        GET: async (_req, res) => {
          const text = renderFamilies(await peers.all({ kind: 'metrics' }))
          res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' })
          res.end(text)
        },
      },
    ],
    [
      '/servebench/timings',
      {
        GET: async (_req, res) => sendJson(res, 200, (await peers.all({ kind: 'timings' })).flat()),
        DELETE: async (_req, res) => {
          await peers.all({ kind: 'clear-timings' })
          res.writeHead(204)
          res.end()
        },
      },
    ],
  ])
}

async function dispatch(
  ctx: SimContext,
  routes: Map<string, Partial<Record<string, Handler>>>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!
  try {
    const route = routes.get(path)
    // FastAPI's answers for unknown paths and methods, which is what vLLM returns.
    if (!route) return sendJson(res, 404, { detail: 'Not Found' })
    const handler = route[req.method ?? 'GET']
    if (!handler) return sendJson(res, 405, { detail: 'Method Not Allowed' })
    const key = ctx.options.apiKey
    if (key !== undefined && !OPEN_PATHS.has(path) && req.headers.authorization !== `Bearer ${key}`) {
      return sendJson(res, 401, { error: 'Unauthorized' })
    }
    await handler(req, res)
  } catch (error) {
    if (res.headersSent) {
      res.destroy()
      return
    }
    sendError(res, error instanceof SimHttpError ? error : new SimHttpError(500, String(error)))
  }
}
