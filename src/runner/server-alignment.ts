import PQueue from 'p-queue'
import { Agent, type Dispatcher, request } from 'undici'
import type { SampleRequest } from '../config/records.ts'
import {
  type AuxTimeouts,
  auxRequestOptions,
  detokenizeReplyMaxBytes,
  isAuxTimeout,
  readTextCapped,
  tokenizeReplyMaxBytes,
} from '../response-body.ts'

/** Cut-and-count rounds per prompt when a cut prompt re-encodes to another length. */
const MAX_FIT_ROUNDS = 4

/** Requests in flight to `/tokenize` and `/detokenize` while fitting prompts (Python's semaphore). */
export const ALIGNMENT_CONCURRENCY = 64

export interface ServerAlignmentOptions {
  /** Scheme, host and port; `/tokenize` and `/detokenize` are appended. */
  baseUrl: string
  /** Sent as `model` in each body. */
  model: string
  /** `authorization` and the `--header` pairs. */
  headers: Record<string, string>
  /** `--insecure`: accept any TLS certificate, as the run's requests do. @default false */
  insecure?: boolean
  /** Console lines, as Python prints them. */
  log(line: string): void
  /** @default ALIGNMENT_CONCURRENCY */
  concurrency?: number
  /** The run's `--request-timeout` and `--read-timeout`, per exchange. @default 300 s (aiohttp's 5 minutes) */
  timeouts?: AuxTimeouts
}

/** undici's default, which stands for aiohttp's 5 minutes when the run sets no timeout. */
const DEFAULT_EXCHANGE_TIMEOUT_MS = 300_000

/**
 * Python `_align_prompts_to_server_tokenizer` (vllm/benchmarks/serve.py): the first prompt goes to the
 * server's `POST /tokenize {model, prompt, add_special_tokens: false}`. When the server counts
 * `prompt_len` tokens, the prompts are kept. Otherwise every prompt is tokenised on the server,
 * and one longer than its `prompt_len` is cut to its first `prompt_len` server tokens and turned
 * back into text by `POST /detokenize {model, tokens}`, `ALIGNMENT_CONCURRENCY` prompts at a time;
 * its `promptLen` becomes the server's count of the text sent.
 * A prompt whose exchange fails is kept as it was; a `/tokenize` that fails on the first prompt
 * skips the alignment with Python's warning. Token-id prompts and batched prompts are sent as
 * they are, so they are left alone (Python checks that the first prompt is a string).
 */
export async function alignPromptsToServerTokenizer(
  samples: SampleRequest[],
  options: ServerAlignmentOptions,
): Promise<SampleRequest[]> {
  const first = samples[0]
  if (first === undefined || first.promptTokenIds !== undefined || first.promptList !== undefined)
    return samples
  const dispatcher = new Agent(options.insecure ? { connect: { rejectUnauthorized: false } } : {})
  try {
    return await align(samples, first, options, dispatcher)
  } finally {
    await dispatcher.close()
  }
}

async function align(
  samples: SampleRequest[],
  first: SampleRequest,
  options: ServerAlignmentOptions,
  dispatcher: Dispatcher,
): Promise<SampleRequest[]> {
  const post = serverPost(options, dispatcher)
  const tokenize = async (prompt: string): Promise<number[]> =>
    tokenIds(
      (
        await post(
          '/tokenize',
          { model: options.model, prompt, add_special_tokens: false },
          tokenizeReplyMaxBytes(prompt),
        )
      ).tokens,
    )
  let firstTokens: number[]
  try {
    firstTokens = await tokenize(first.prompt)
  } catch (error) {
    // Python's line, then why (a timeout, an oversized answer, a refusal).
    options.log('WARNING: /tokenize unavailable, skipping alignment.')
    options.log(`servebench: ${describeExchangeError(error, options.timeouts)}`)
    return samples
  }
  if (firstTokens.length === first.promptLen) return samples
  options.log(
    `WARNING: tokenizer mismatch (server=${firstTokens.length}, expected=${first.promptLen}), re-aligning prompts.`,
  )
  const detokenize = async (tokens: number[]): Promise<string> => {
    const answer = await post(
      '/detokenize',
      { model: options.model, tokens },
      detokenizeReplyMaxBytes(tokens.length),
    )
    if (typeof answer.prompt !== 'string') throw new Error('/detokenize answered no "prompt" string')
    return answer.prompt
  }
  const fitOne = async (sample: SampleRequest): Promise<SampleRequest> => {
    const tokens = await tokenize(sample.prompt)
    const target = sample.promptLen
    // Deviation: the server's count of the prompt sent becomes its prompt_len (Python keeps the
    // client's count), so a prompt the server counts shorter reports what it is.
    if (tokens.length <= target)
      return tokens.length === target ? sample : { ...sample, promptLen: tokens.length }
    // Python cuts once at `target`. Deviation (as the Rust port, which retries): the cut text can
    // re-encode a token or two off at its end, so the cut point moves by the difference, a few
    // rounds at most, and the closest text at or under the target is kept.
    let best: { prompt: string; count: number } | undefined
    let cut = target
    const tried = new Set<number>()
    for (let round = 0; round < MAX_FIT_ROUNDS && !tried.has(cut); round++) {
      tried.add(cut)
      const prompt = await detokenize(tokens.slice(0, cut))
      const count = (await tokenize(prompt)).length
      if (count <= target && (best === undefined || count > best.count)) best = { prompt, count }
      if (count === target) break
      cut = Math.min(tokens.length, Math.max(1, cut + target - count))
    }
    return best === undefined ? sample : { ...sample, prompt: best.prompt, promptLen: best.count }
  }
  const queue = new PQueue({ concurrency: options.concurrency ?? ALIGNMENT_CONCURRENCY })
  return Promise.all(samples.map((sample) => queue.add(() => fitOne(sample).catch(() => sample))))
}

type Post = (
  path: '/tokenize' | '/detokenize',
  body: object,
  maxBytes: number,
) => Promise<Record<string, unknown>>

function serverPost(options: ServerAlignmentOptions, dispatcher: Dispatcher): Post {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const headers = { 'content-type': 'application/json', ...options.headers }
  return async (path, body, maxBytes) => {
    const response = await request(`${baseUrl}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      dispatcher,
      ...auxRequestOptions(options.timeouts ?? {}, DEFAULT_EXCHANGE_TIMEOUT_MS),
    })
    // A failed or non-JSON answer (an SSE stream, an HTML page from a proxy) is not read on: its
    // body may never end.
    const type = String(response.headers['content-type'] ?? '')
    if (response.statusCode < 200 || response.statusCode > 299 || !type.includes('json')) {
      // Destroying emits an abort error on the body; nothing is waiting for it.
      response.body.on('error', () => {})
      response.body.destroy()
      throw new Error(`POST ${path} answered ${response.statusCode} ${type || 'without a content type'}`)
    }
    const text = await readTextCapped(response.body, maxBytes, `POST ${path}`, {
      contentLength: response.headers['content-length'],
    })
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed !== 'object' || parsed === null) throw new Error(`POST ${path} answered no object`)
    return parsed as Record<string, unknown>
  }
}

function tokenIds(value: unknown): number[] {
  if (!Array.isArray(value) || !value.every(Number.isInteger))
    throw new Error('/tokenize answered no "tokens" list')
  return value as number[]
}

/** Why the first `/tokenize` failed, in words: a timeout names the flag that set it. */
function describeExchangeError(error: unknown, timeouts: AuxTimeouts | undefined): string {
  if (isAuxTimeout(error)) {
    const flag =
      timeouts?.timeoutS !== undefined
        ? `--request-timeout ${timeouts.timeoutS}`
        : timeouts?.readTimeoutS !== undefined
          ? `--read-timeout ${timeouts.readTimeoutS}`
          : `${DEFAULT_EXCHANGE_TIMEOUT_MS / 1000} s`
    return `POST /tokenize got no answer within ${flag}`
  }
  return error instanceof Error ? error.message : String(error)
}
