/**
 * Worker-thread entry of the random-prompt pool ({@link buildRandomPrompts} in generate-pool.ts):
 * loads the tokenizer once, then builds each posted chunk of requests and posts the prompts back.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { loadTokenizer } from '../../tokenizer/index.ts'
import type { PromptJob, PromptWorkerData, WorkerReply } from './generate-pool.ts'
import { buildRandomPrompt } from './random-prompts.ts'

const { tokenizerId, plan } = workerData as PromptWorkerData
const port = parentPort!
const ready = loadTokenizer({ id: tokenizerId }).then((tokenizer) => ({
  tokenizer,
  allowed: tokenizer.allowedTokenIds(),
}))
// Chunks are built one after another, in the order they arrive.
let queue: Promise<void> = Promise.resolve()

port.on('message', (job: PromptJob) => {
  queue = queue
    .then(() => build(job))
    .catch((error: unknown) => {
      const reply: WorkerReply = {
        kind: 'error',
        message: error instanceof Error ? error.message : String(error),
      }
      port.postMessage(reply)
    })
})

async function build(job: PromptJob): Promise<void> {
  const { tokenizer, allowed } = await ready
  const size = job.end - job.start
  const prompts = new Array<string>(size)
  const offsets = new Int32Array(size + 1)
  const promptLens = new Int32Array(size)
  const ids: Int32Array[] | undefined = plan.promptTokenIds ? [] : undefined
  let mismatch = 0
  for (let k = 0; k < size; k++) {
    const built = await buildRandomPrompt(tokenizer, allowed, plan, job.start + k)
    prompts[k] = built.prompt
    offsets[k + 1] = offsets[k]! + Buffer.byteLength(built.prompt, 'utf8')
    promptLens[k] = built.promptLen
    if (ids !== undefined) ids.push(Int32Array.from(built.ids!))
    mismatch += built.mismatch
  }
  // One UTF-8 buffer for the chunk: half the bytes of two-byte strings, and moved to the pool.
  const bytes = new Uint8Array(offsets[size]!)
  const encoder = new TextEncoder()
  for (let k = 0; k < size; k++) encoder.encodeInto(prompts[k]!, bytes.subarray(offsets[k]!))
  const reply: WorkerReply = {
    kind: 'chunk',
    start: job.start,
    bytes,
    offsets,
    promptLens,
    mismatch,
    ...(ids ? { ids } : {}),
  }
  // The typed arrays are moved, not copied; the prompt strings are dropped here.
  const transfer = [bytes, offsets, promptLens, ...(ids ?? [])].map((array) => array.buffer as ArrayBuffer)
  port.postMessage(reply, transfer)
}
