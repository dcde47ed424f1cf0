import { strict as assert } from 'node:assert'
import { Worker } from 'node:worker_threads'
import type { PoolOptions, PoolRunnerInitializer, PoolWorker, WorkerRequest } from 'vitest/node'
import type { EndpointOptions } from '../../config/dsl-options.ts'
import type { SimOptions } from '../../sim/options.ts'
import { type SimServer, startSimulator } from '../../sim/server.ts'
import type { WorkerSettings } from '../shared/meta.ts'

/** Name of the pool in Vitest's output; equal in the initializer and its workers. */
export const POOL_NAME = 'servebench'

/**
 * Where benchmarks send requests when they name no base URL: the plugin option, else
 * `SERVEBENCH_BASE_URL`, else the embedded simulator, started once on first use and stopped by
 * {@link EndpointProvider.close} at the end of the run.
 * @experimental
 */
export class EndpointProvider {
  private sim?: Promise<SimServer>
  private readonly options: EndpointProviderOptions

  constructor(options: EndpointProviderOptions = {}) {
    this.options = options
  }

  async settings(): Promise<WorkerSettings> {
    const tokenizer =
      typeof this.options.simulator?.tokenizer === 'string' ? this.options.simulator.tokenizer : 'cl100k_base'
    const defaults = this.options.endpointDefaults
    const shared = defaults !== undefined ? { endpointDefaults: defaults } : {}
    const fixed =
      this.options.baseUrl ?? defaults?.baseUrl ?? (this.options.env ?? process.env).SERVEBENCH_BASE_URL
    if (fixed) return { baseUrl: fixed, simulator: false, simulatorTokenizer: tokenizer, ...shared }
    this.sim ??= startSimulator({ ...this.options.simulator, host: '127.0.0.1', port: 0 })
    const server = await this.sim
    return { baseUrl: server.url, simulator: true, simulatorTokenizer: tokenizer, ...shared }
  }

  async close(): Promise<void> {
    const sim = this.sim
    this.sim = undefined
    if (sim) await (await sim).close()
  }
}

/** What {@link EndpointProvider} is built from: the plugin's options. @experimental */
export interface EndpointProviderOptions {
  baseUrl?: string
  simulator?: SimOptions
  env?: NodeJS.ProcessEnv
  /** Endpoint fields every suite starts from; passed to the worker. */
  endpointDefaults?: EndpointOptions
}

/** The pool: one worker thread at a time, reused across files so HTTP pools stay warm. @experimental */
export function servebenchPool(endpoints: EndpointProvider): PoolRunnerInitializer {
  return { name: POOL_NAME, createPoolWorker: (options) => new ServebenchPoolWorker(options, endpoints) }
}

/**
 * A worker thread running {@link file://./../runtime/worker.ts}, Vitest's worker runtime with the
 * endpoint settings in `workerData.servebench`.
 */
class ServebenchPoolWorker implements PoolWorker {
  readonly name = POOL_NAME
  private thread?: Worker
  private readonly options: PoolOptions
  private readonly endpoints: EndpointProvider

  constructor(options: PoolOptions, endpoints: EndpointProvider) {
    this.options = options
    this.endpoints = endpoints
  }

  async start(): Promise<void> {
    if (this.thread) return
    // Relative dataset paths resolve from the Vitest root, as result and baseline folders do.
    const servebench = { ...(await this.endpoints.settings()), root: this.options.project.vitest.config.root }
    this.thread = new Worker(workerEntry(), {
      env: this.options.env as NodeJS.ProcessEnv,
      execArgv: this.options.execArgv,
      workerData: { servebench },
    })
  }

  async stop(): Promise<void> {
    const thread = this.thread
    this.thread = undefined
    await thread?.terminate()
  }

  send(message: WorkerRequest): void {
    assert(this.thread, 'servebench pool: message sent before start(). This is a bug in servebench.')
    this.thread.postMessage(message)
  }

  on(event: string, callback: (arg: unknown) => void): void {
    assert(this.thread, 'servebench pool: listener added before start(). This is a bug in servebench.')
    this.thread.on(event, callback)
  }

  off(event: string, callback: (arg: unknown) => void): void {
    this.thread?.off(event, callback)
  }

  deserialize(data: unknown): unknown {
    return data
  }

  canReuse(): boolean {
    return true
  }
}

// The entry must be JS on Node 20: from dist it sits next to this file; from source, use the build.
function workerEntry(): URL {
  const here = import.meta.url
  return here.endsWith('.ts')
    ? new URL('../../../dist/vitest/runtime/worker.js', here)
    : new URL('../runtime/worker.js', here)
}
