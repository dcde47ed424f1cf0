/**
 * `dataParallelSize` N: N engine processes behind one port, each an independent engine with its
 * own scheduler, KV cache and HTTP server, as vLLM's data-parallel replicas are. This primary
 * process only accepts: each connection is handed, paused, to the next engine in turn (a
 * round-robin over connections; vLLM's front end balances each request by the engines' queues, and
 * a benchmark's many keep-alive connections spread the same way). Per request nothing crosses
 * processes; `/metrics`, the timing records, faults and the prefix-cache reset ask every engine
 * through here, and each engine reports its stats when they change.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { createRequire } from 'node:module'
import { createServer, type Socket } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ConfigError } from '../errors.ts'
import type { EngineAnswers, EngineAsk, FromEngine, ToEngine } from './engine-peers.ts'
import { type ResolvedFault, resolveFaults } from './faults.ts'
import { listen, simUrl } from './listen.ts'
import type { ResolvedSimOptions, SimOptions } from './options.ts'
import type { SimServer } from './server.ts'
import { combineStats, type SimStats } from './sim-stats.ts'

/** How long a closing engine may take before it is killed. */
const CLOSE_GRACE_MS = 2_000

interface Engine {
  child: ChildProcess
  stats: SimStats
  /** Why it stopped, once it has. */
  gone?: string
}

interface Ask {
  kind: EngineAsk['kind']
  answers: unknown[]
  left: Set<number>
  resolve(answers: unknown[]): void
}

/** Starts the engines and the listening primary; resolves once every engine is ready. */
export async function startDataParallel(
  options: SimOptions,
  resolved: ResolvedSimOptions,
): Promise<SimServer> {
  const size = resolved.dataParallelSize
  const engines: Engine[] = Array.from({ length: size }, () => ({ child: forkEngine(), stats: noStats() }))
  const asks = new Map<number, Ask>()
  let nextAsk = 0
  let faults: ResolvedFault[] = resolved.faults
  const askAll = <A extends EngineAsk>(ask: A): Promise<Array<EngineAnswers[A['kind']]>> =>
    new Promise<unknown[]>((resolve) => {
      const id = nextAsk++
      const left = new Set(engines.flatMap((e, i) => (e.gone ? [] : [i])))
      const pending: Ask = { kind: ask.kind, answers: engines.map(() => goneAnswer(ask.kind)), left, resolve }
      if (left.size === 0) return resolve(pending.answers)
      asks.set(id, pending)
      for (const i of left) post(engines[i]!, { kind: 'ask', id, ask })
    }) as Promise<Array<EngineAnswers[A['kind']]>>
  const answered = (id: number, engine: number, value: unknown): void => {
    const ask = asks.get(id)
    if (!ask?.left.delete(engine)) return
    ask.answers[engine] = value
    if (ask.left.size === 0) {
      asks.delete(id)
      ask.resolve(ask.answers)
    }
  }

  const started = engines.map(
    (engine, i) =>
      new Promise<void>((resolve, reject) => {
        engine.child.on('message', (message: FromEngine) => {
          switch (message.kind) {
            case 'started':
              return resolve()
            case 'failed':
              return reject(message.issues ? new ConfigError(message.issues) : new Error(message.message))
            case 'answer':
              return answered(message.id, i, message.value)
            case 'gather':
              void askAll(message.ask).then((answers) =>
                post(engine, { kind: 'gathered', id: message.id, answers }),
              )
              return
            case 'stats':
              engine.stats = message.stats
              return
          }
        })
        engine.child.once('exit', (code, signal) => {
          engine.gone = `engine ${i} exited (${signal ?? code})`
          reject(new Error(`servebench sim: ${engine.gone} while starting`))
          // An engine that is gone answers every ask with nothing rather than holding it.
          for (const [id] of asks) answered(id, i, goneAnswer(asks.get(id)!.kind))
        })
        post(engine, {
          kind: 'start',
          options: { ...options, dataParallelSize: 1 },
          engine: i,
          engines: size,
        })
      }),
  )
  const stopEngines = (): Promise<void> => Promise.all(engines.map(stopEngine)).then(() => {})
  try {
    await Promise.all(started)
  } catch (error) {
    await stopEngines()
    throw error
  }

  let next = 0
  const server = createServer({ pauseOnConnect: true }, (socket: Socket) => {
    const live = engines.filter((e) => !e.gone)
    const engine = live[next++ % Math.max(1, live.length)]
    if (!engine) {
      socket.destroy()
      return
    }
    engine.child.send({ kind: 'connection' } satisfies ToEngine, socket, (error) => {
      if (error) socket.destroy()
    })
  })
  try {
    await listen(server, resolved)
  } catch (error) {
    await stopEngines()
    throw error
  }
  const { port } = server.address() as { port: number }
  return {
    url: simUrl(resolved.host, port),
    port,
    options: resolved,
    async close() {
      // The primary's close waits for every socket it handed over to close: the engines close
      // them (and exit) first.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      await stopEngines()
      await closed
    },
    timings() {
      throw new Error(
        `timings() reads one engine; this simulator has ${size} (dataParallelSize): use collectTimings() or GET /servebench/timings`,
      )
    },
    collectTimings: async () => (await askAll({ kind: 'timings' })).flat(),
    stats: () => combineStats(engines.map((e) => e.stats)),
    collectStats: async () => combineStats(await askAll({ kind: 'stats' })),
    setFaults(list) {
      faults = resolveFaults(list)
      // Each engine counts its own requests; the message reaches it before any connection dealt later.
      void askAll({ kind: 'set-faults', faults })
      return faults
    },
    faults: () => faults,
  }
}

function post(engine: Engine, message: ToEngine): void {
  if (!engine.gone && engine.child.connected) engine.child.send(message)
}

/** Asks an engine to close, and kills it if it takes longer than {@link CLOSE_GRACE_MS}. */
function stopEngine(engine: Engine): Promise<void> {
  if (engine.child.exitCode !== null || engine.child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => engine.child.kill('SIGKILL'), CLOSE_GRACE_MS)
    engine.child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    if (engine.child.connected) engine.child.send({ kind: 'close' } satisfies ToEngine)
    else engine.child.kill()
  })
}

/** What an engine that is gone contributes to an ask. */
function goneAnswer(kind: EngineAsk['kind']): unknown {
  if (kind === 'metrics' || kind === 'timings') return []
  if (kind === 'stats') return noStats()
  return null
}

function noStats(): SimStats {
  return combineStats([])
}

// On Node 20 a child's entry must be JavaScript: from dist/ it is the compiled file. From the
// TypeScript sources the child loads them as this process does: with its loader flags when they
// load tsx (`tsx`, `node --import tsx`, a global tsx), else (Vitest) with tsx's ESM hooks added,
// found beside this package or in the working directory.
function forkEngine(): ChildProcess {
  const here = import.meta.url
  const fromSources = here.endsWith('.ts')
  const entry = fileURLToPath(new URL(fromSources ? './engine-process.ts' : './engine-process.js', here))
  const loaders = loaderFlags(process.execArgv)
  const viaTsx = loaders.some((arg) => /\btsx\b/.test(arg))
  const execArgv = !fromSources ? loaders : viaTsx ? loaders : [...loaders, '--import', tsxEsm(here)]
  return fork(entry, [], {
    execArgv,
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
}

const LOADER_FLAGS = ['--import', '--require', '-r', '--loader', '--experimental-loader']

/** The flags of `argv` that load code, with their values. */
function loaderFlags(argv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!LOADER_FLAGS.includes(arg.split('=')[0]!)) continue
    out.push(arg)
    if (!arg.includes('=') && i + 1 < argv.length) out.push(argv[++i]!)
  }
  return out
}

function tsxEsm(here: string): string {
  for (const base of [here, pathToFileURL(join(process.cwd(), 'noop.js')).href]) {
    try {
      return pathToFileURL(createRequire(base).resolve('tsx/esm')).href
    } catch {
      // Not here: the next place.
    }
  }
  throw new Error('servebench sim runs from its TypeScript sources and needs tsx for its engine processes')
}
