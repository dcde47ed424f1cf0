import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { SimContext, SimCounters } from './context.ts'
import { createEngine, type SimEngine } from './engine.ts'
import { applyFaultPlan } from './fault-response.ts'
import { FaultInjector, type FaultSpec, type ResolvedFault, resolveFaults } from './faults.ts'
import { runGeneration } from './generation.ts'
import { type ResolvedSimOptions, resolveSimOptions, type SimOptions } from './options.ts'
import { parseChatRequest } from './routes/chat.ts'
import { parseCompletionsRequest } from './routes/completions.ts'
import { faultRoutes } from './routes/control.ts'
import { parseJsonObject, readBody, SimHttpError, sendError, sendJson } from './routes/http.ts'
import { metricsText, modelsResponse, versionResponse } from './routes/info.ts'
import { poolingHandler } from './routes/pooling.ts'
import { parseResponsesRequest } from './routes/responses.ts'
import { detokenizeResponse, tokenizeResponse } from './routes/tokenize.ts'
import { transcriptionHandler } from './routes/transcription.ts'
import { SimMetrics } from './sim-metrics.ts'
import { SpecDecodeSim } from './spec-decode.ts'
import type { StepLagStats } from './step-clock.ts'
import { createTiktokenSimTokenizer } from './tiktoken.ts'
import { type SimRequestTimings, TimingRecorder } from './timing-record.ts'
import { createWordSource } from './words.ts'

export type { FaultKind, FaultSpec, ResolvedFault } from './faults.ts'
export type { StepLagStats } from './step-clock.ts'
export type { SimRequestTimings } from './timing-record.ts'

/** Counters of a running simulator. */
export interface SimStats {
  requestsReceived: number
  requestsFinished: number
  /** Requests whose client went away before the last token. */
  requestsAborted: number
  /** Generation requests by the `model` field they sent; the simulator answers any name. */
  requestsByModel: Record<string, number>
  /** Sequences running now (`vllm:num_requests_running`). */
  running: number
  /** Sequences waiting for a slot (`vllm:num_requests_waiting`). */
  waiting: number
  promptTokensTotal: number
  generationTokensTotal: number
  /** How late engine steps ran (also `servebench_sim_step_lag_seconds` on `/metrics`). */
  stepLag: StepLagStats
}

/** A started simulator. */
export interface SimServer {
  /** `http://HOST:PORT`, without a trailing slash; the OpenAI base URL is `${url}/v1`. */
  readonly url: string
  readonly port: number
  /** The options in force, defaults applied. */
  readonly options: ResolvedSimOptions
  /** Stops accepting, drops open streams and stops the engine. */
  close(): Promise<void>
  /** Per-request timing records; empty unless `recordTimings` is on. */
  timings(): SimRequestTimings[]
  stats(): SimStats
  /**
   * Replaces the injected faults (`--fault` strings or objects) and restarts their request count:
   * `nth: 1` is the next generation request. `[]` clears them. Throws `ConfigError` for a bad fault.
   */
  setFaults(faults: ReadonlyArray<FaultSpec | string>): ResolvedFault[]
  /** The faults in force, defaults applied. */
  faults(): ResolvedFault[]
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void

// Routes that stay open when an API key is set: probes and scraping.
const OPEN_PATHS = new Set(['/health', '/ping', '/version', '/metrics'])

/**
 * Starts the simulated vLLM server and resolves once it listens.
 * Throws `ConfigError` for bad options (every issue at once).
 */
export async function startSimulator(options: SimOptions = {}): Promise<SimServer> {
  const resolved = resolveSimOptions(options, createTiktokenSimTokenizer)
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
    nextRequestNumber: () => ++requestNumber,
  }
  if (resolved.specDecode) {
    const { numTokens, acceptanceRate } = resolved.specDecode
    ctx.metrics.specDecode = new SpecDecodeSim(numTokens, acceptanceRate, resolved.seed)
  }
  const startedAtS = Math.floor(Date.now() / 1000)
  const routes = createRoutes(ctx, startedAtS)
  const server = createServer({ noDelay: true, keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) => {
    void dispatch(ctx, routes, req, res)
  })
  server.headersTimeout = 70_000
  server.on('connection', (socket) => socket.setNoDelay(true))
  await listen(server, resolved)
  const port = (server.address() as AddressInfo).port
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host
  return {
    url: `http://${host}:${port}`,
    port,
    options: resolved,
    close: () => closeServer(server, engine),
    timings: () => ctx.timings?.list() ?? [],
    stats: () => ({
      ...counters,
      requestsByModel: { ...counters.requestsByModel },
      running: engine.runningCount(),
      waiting: engine.waitingCount(),
      promptTokensTotal: ctx.metrics.promptTokensTotal,
      generationTokensTotal: ctx.metrics.generationTokensTotal,
      stepLag: engine.lag(),
    }),
    setFaults: (faults) => {
      const list = resolveFaults(faults)
      ctx.faults.set(list)
      return list
    },
    faults: () => ctx.faults.list(),
  }
}

function createRoutes(ctx: SimContext, startedAtS: number): Map<string, Partial<Record<string, Handler>>> {
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
    // vLLM serves it with VLLM_SERVER_DEV_MODE=1 (`--reset-prefix-cache`).
    [
      '/reset_prefix_cache',
      {
        POST: (req, res) => {
          ctx.engine.resetPrefixCache()
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
    ['/servebench/faults', faultRoutes(ctx)],
    ['/tokenize', { POST: json((body) => tokenizeResponse(ctx, body)) }],
    ['/detokenize', { POST: json((body) => detokenizeResponse(ctx, body)) }],
    [
      '/metrics',
      {
        GET: (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' })
          res.end(metricsText(ctx))
        },
      },
    ],
    [
      '/servebench/timings',
      {
        GET: (_req, res) => sendJson(res, 200, ctx.timings?.list() ?? []),
        DELETE: (_req, res) => {
          ctx.timings?.clear()
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

function listen(server: Server, options: ResolvedSimOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    // A deep backlog so a burst of thousands of connections is not dropped into SYN retries.
    server.listen({ host: options.host, port: options.port, backlog: 4096 }, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

function closeServer(server: Server, engine: SimEngine): Promise<void> {
  engine.close()
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}
