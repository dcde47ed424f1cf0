import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { DatasetError } from '../../errors.ts'
import type { Tokenizer } from '../../tokenizer/index.ts'
import { tsWorkerShim } from '../../tsx-location.ts'
import { buildRandomPrompt, type RandomPromptPlan } from './random-prompts.ts'

/**
 * A prompt's text: a string, or its UTF-8 bytes in a chunk buffer that a worker sent (half the
 * memory of a V8 string for text outside Latin-1), decoded by {@link promptText} when read.
 */
export type PromptText = string | Uint8Array

/** The prompts of a plan, in request order. */
export interface BuiltPrompts {
  prompts: PromptText[]
  promptLens: Int32Array
  /** Token ids per request; only with `plan.promptTokenIds`. */
  ids?: number[][]
  /** Sum of the per-prompt length mismatches left after fitting. */
  mismatchTotal: number
}

/** @experimental */
export interface BuildPromptsOptions {
  /**
   * Worker threads to build on; 0 builds on the calling thread. By default: one per available
   * core when the plan holds at least {@link MIN_TOKENS_FOR_WORKERS} tokens and the tokenizer is
   * local (the server `/tokenize` fallback always stays on the calling thread).
   */
  threads?: number
}

/** Posted by the pool to a worker: build requests [start, end) of the plan. */
export interface PromptJob {
  start: number
  end: number
}

/** Posted by a worker back to the pool. */
export type WorkerReply =
  | {
      kind: 'chunk'
      start: number
      /** The chunk's prompts, UTF-8, one after another; prompt k is bytes [offsets[k], offsets[k + 1]). */
      bytes: Uint8Array
      offsets: Int32Array
      promptLens: Int32Array
      ids?: Int32Array[]
      mismatch: number
    }
  | { kind: 'error'; message: string }

/** What a worker gets at start-up. */
export interface PromptWorkerData {
  tokenizerId: string
  plan: RandomPromptPlan
}

/** Below this many tokens in a plan, starting workers and loading their tokenizers costs more than it saves. */
export const MIN_TOKENS_FOR_WORKERS = 200_000

// About this many tokens go to a worker at a time: small enough that the prompts in flight
// between threads stay a few MB, large enough that messages are not the cost.
const CHUNK_TOKENS = 65_536
// Chunks each worker holds, so it never waits for the main thread between two chunks.
const CHUNKS_IN_FLIGHT = 2

/**
 * Builds every prompt of a random-dataset plan, on worker threads when that pays (see
 * {@link BuildPromptsOptions.threads}). Each worker loads the tokenizer once by its id and builds
 * contiguous chunks of requests; results land by index, so the output is identical to building
 * on one thread for the same plan. A worker sends each chunk as one UTF-8 buffer, moved rather
 * than copied, and the prompts stay in it (see {@link PromptText}).
 */
export async function buildRandomPrompts(
  tokenizer: Tokenizer,
  plan: RandomPromptPlan,
  options: BuildPromptsOptions = {},
): Promise<BuiltPrompts> {
  const count = plan.inputLens.length
  const threads = Math.min(options.threads ?? defaultThreads(tokenizer, plan), count)
  if (threads < 1) return buildInThread(tokenizer, plan)
  return buildOnWorkers(tokenizer.id, plan, threads)
}

/** Builds the plan on the calling thread. */
export async function buildInThread(tokenizer: Tokenizer, plan: RandomPromptPlan): Promise<BuiltPrompts> {
  const count = plan.inputLens.length
  const allowed = tokenizer.allowedTokenIds()
  const built = emptyResult(count, plan.promptTokenIds)
  for (let i = 0; i < count; i++) {
    const prompt = await buildRandomPrompt(tokenizer, allowed, plan, i)
    built.prompts[i] = prompt.prompt
    built.promptLens[i] = prompt.promptLen
    if (built.ids !== undefined) built.ids[i] = prompt.ids!
    built.mismatchTotal += prompt.mismatch
  }
  return built
}

function defaultThreads(tokenizer: Tokenizer, plan: RandomPromptPlan): number {
  if (tokenizer.kind === 'server') return 0
  let tokens = 0
  for (const len of plan.inputLens) tokens += len + plan.prefix.length
  return tokens < MIN_TOKENS_FOR_WORKERS ? 0 : availableParallelism()
}

function buildOnWorkers(tokenizerId: string, plan: RandomPromptPlan, threads: number): Promise<BuiltPrompts> {
  const count = plan.inputLens.length
  const jobs = splitIntoJobs(plan)
  const built = emptyResult(count, plan.promptTokenIds)
  const workerData: PromptWorkerData = { tokenizerId, plan }
  const workers: Worker[] = []
  let next = 0
  let done = 0
  return new Promise<BuiltPrompts>((resolve, reject) => {
    let settled = false
    const finish = (error?: Error): void => {
      if (settled) return
      settled = true
      for (const worker of workers) void worker.terminate()
      if (error === undefined) resolve(built)
      else reject(error)
    }
    const assign = (worker: Worker): void => {
      const job = jobs[next]
      if (job === undefined) return
      next++
      worker.postMessage(job satisfies PromptJob)
    }
    for (let t = 0; t < threads && t * CHUNKS_IN_FLIGHT < jobs.length; t++) {
      const worker = startWorker(workerData)
      workers.push(worker)
      worker.on('message', (reply: WorkerReply) => {
        if (reply.kind === 'error') {
          finish(new DatasetError(`random: a prompt worker failed: ${reply.message}`))
          return
        }
        store(built, reply)
        done++
        if (done === jobs.length) finish()
        else assign(worker)
      })
      worker.on('error', (error) =>
        finish(new DatasetError('random: a prompt worker failed', { cause: error })),
      )
      worker.on('exit', (code) => {
        if (done < jobs.length)
          finish(new DatasetError(`random: a prompt worker exited early (code ${code})`))
      })
      for (let k = 0; k < CHUNKS_IN_FLIGHT; k++) assign(worker)
    }
  })
}

function splitIntoJobs(plan: RandomPromptPlan): PromptJob[] {
  const jobs: PromptJob[] = []
  let start = 0
  let tokens = 0
  for (let i = 0; i < plan.inputLens.length; i++) {
    tokens += plan.inputLens[i]! + plan.prefix.length
    if (tokens >= CHUNK_TOKENS) {
      jobs.push({ start, end: i + 1 })
      start = i + 1
      tokens = 0
    }
  }
  if (start < plan.inputLens.length) jobs.push({ start, end: plan.inputLens.length })
  return jobs
}

// The prompts stay views into the chunk's buffer (moved here, not copied): no string of them exists
// until a request is sent.
function store(built: BuiltPrompts, reply: Extract<WorkerReply, { kind: 'chunk' }>): void {
  for (let k = 0; k < reply.promptLens.length; k++) {
    built.prompts[reply.start + k] = reply.bytes.subarray(reply.offsets[k]!, reply.offsets[k + 1]!)
    built.promptLens[reply.start + k] = reply.promptLens[k]!
    if (built.ids !== undefined) built.ids[reply.start + k] = Array.from(reply.ids![k]!)
  }
  built.mismatchTotal += reply.mismatch
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true })

/** The text of a built prompt (a fresh string each call for packed UTF-8). */
export function promptText(text: PromptText): string {
  return typeof text === 'string' ? text : utf8.decode(text)
}

function emptyResult(count: number, withIds: boolean): BuiltPrompts {
  return {
    prompts: new Array<PromptText>(count),
    promptLens: new Int32Array(count),
    ...(withIds ? { ids: new Array<number[]>(count) } : {}),
    mismatchTotal: 0,
  }
}

// The worker entry is JS in dist/ (Node 20 cannot start a .ts worker). Running from the
// sources (vitest, tsx), a one-line shim registers tsx in the new thread first.
// Workers get only the process flags that load code (a worker refuses per-process flags such as
// `--trace-gc`, and `--input-type` from `node -e` stops it loading a file).
function startWorker(workerData: PromptWorkerData): Worker {
  const here = import.meta.url
  const execArgv = workerExecArgv(process.execArgv)
  if (!here.endsWith('.ts')) return new Worker(new URL('./random-worker.js', here), { workerData, execArgv })
  const shim = tsWorkerShim(new URL('./random-worker.ts', here).href, here)
  return new Worker(shim, { eval: true, workerData, execArgv })
}

const WORKER_FLAGS = [
  '--conditions',
  '-C',
  '--import',
  '--require',
  '-r',
  '--loader',
  '--experimental-loader',
]

/** The flags of `argv` a worker thread needs and accepts: those that load code, with their values. */
export function workerExecArgv(argv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const name = arg.split('=')[0]!
    if (!WORKER_FLAGS.includes(name)) continue
    out.push(arg)
    if (!arg.includes('=') && i + 1 < argv.length) out.push(argv[++i]!)
  }
  return out
}
