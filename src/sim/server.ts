import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startDataParallel } from './data-parallel.ts'
import type { EngineAsk, SimPeers } from './engine-peers.ts'
import { type FaultSpec, type ResolvedFault, resolveFaults } from './faults.ts'
import { listen, simUrl } from './listen.ts'
import { type ResolvedSimOptions, resolveSimOptions, type SimOptions } from './options.ts'
import { createNodeServer, createSimNode, type SimNode } from './sim-node.ts'
import type { SimStats } from './sim-stats.ts'
import { createTiktokenSimTokenizer } from './tiktoken.ts'
import type { SimRequestTimings } from './timing-record.ts'

export type { FaultKind, FaultSpec, ResolvedFault } from './faults.ts'
export type { SimStats } from './sim-stats.ts'
export type { StepLagStats } from './step-clock.ts'
export type { SimRequestTimings } from './timing-record.ts'

/** A started simulator. */
export interface SimServer {
  /** `http://HOST:PORT`, without a trailing slash; the OpenAI base URL is `${url}/v1`. */
  readonly url: string
  readonly port: number
  /** The options in force, defaults applied. */
  readonly options: ResolvedSimOptions
  /** Stops accepting, drops open streams and stops the engine. */
  close(): Promise<void>
  /**
   * Per-request timing records; empty unless `recordTimings` is on. One engine's: a simulator of
   * several (`dataParallelSize`) throws, and gives every engine's through {@link collectTimings}.
   */
  timings(): SimRequestTimings[]
  /** Every engine's timing records, in engine order (as `GET /servebench/timings`). */
  collectTimings(): Promise<SimRequestTimings[]>
  /**
   * The counters, summed over the engines. With `dataParallelSize` above 1 each engine reports its
   * own within 50 ms of a change; {@link collectStats} asks every engine now.
   */
  stats(): SimStats
  /** {@link stats}, asked of every engine now. */
  collectStats(): Promise<SimStats>
  /**
   * Replaces the injected faults (`--fault` strings or objects) and restarts their request count:
   * `nth: 1` is the next generation request. `[]` clears them. Throws `ConfigError` for a bad fault.
   */
  setFaults(faults: ReadonlyArray<FaultSpec | string>): ResolvedFault[]
  /** The faults in force, defaults applied. */
  faults(): ResolvedFault[]
}

/**
 * Starts the simulated vLLM server and resolves once it listens.
 * Throws `ConfigError` for bad options (every issue at once).
 */
export async function startSimulator(options: SimOptions = {}): Promise<SimServer> {
  const resolved = resolveSimOptions(options, createTiktokenSimTokenizer)
  if (resolved.dataParallelSize > 1) return startDataParallel(options, resolved)
  // One engine is every engine: the routes that answer for all ask it alone.
  const node = createSimNode(resolved, { engine: 0, engines: 1, peers: selfPeers })
  const server = createNodeServer(node)
  await listen(server, resolved)
  const port = (server.address() as AddressInfo).port
  const stats = (): SimStats => node.answer({ kind: 'stats' })
  const timings = (): SimRequestTimings[] => node.answer({ kind: 'timings' })
  return {
    url: simUrl(resolved.host, port),
    port,
    options: resolved,
    close: () => closeServer(server, node),
    timings,
    collectTimings: () => Promise.resolve(timings()),
    stats,
    collectStats: () => Promise.resolve(stats()),
    setFaults: (faults) => {
      const list = resolveFaults(faults)
      node.answer({ kind: 'set-faults', faults: list })
      return list
    },
    faults: () => node.faults(),
  }
}

function selfPeers(node: SimNode): SimPeers {
  return { all: <A extends EngineAsk>(ask: A) => Promise.resolve([node.answer(ask)]) }
}

function closeServer(server: Server, node: SimNode): Promise<void> {
  node.close()
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}
