import { request } from 'undici'
import {
  AUX_BODY_LIMITS,
  type AuxTimeouts,
  auxRequestOptions,
  auxTimeoutMs,
  detokenizeReplyMaxBytes,
  isAuxTimeout,
  readBodyHead,
  readTextCapped,
  tokenizeReplyMaxBytes,
} from '../response-body.ts'
import type { Tokenizer } from './index.ts'

export interface ServerTokenizerOptions {
  id: string
  /** Scheme, host and port; `/tokenize` and `/detokenize` are appended. */
  baseUrl: string
  /** Sent as `model` in each body; defaults to `id`. */
  model?: string
  headers?: Record<string, string>
  /** The run's `--request-timeout` and `--read-timeout`; without them each exchange gets 300 s. */
  timeouts?: AuxTimeouts
}

/** undici's default, which stands for aiohttp's 5 minutes when the run sets no timeout. */
const DEFAULT_EXCHANGE_TIMEOUT_MS = 300_000

/** Rust: the vocabulary size of a server tokenizer is estimated, never asked. */
const MIN_ESTIMATED_VOCAB_SIZE = 131_072

/**
 * A tokenizer that asks the server: `POST {baseUrl}/tokenize {model, prompt, add_special_tokens}`
 * → `tokens`, and `POST {baseUrl}/detokenize {model, tokens}` → `prompt`. Probed with `"test"`.
 * The vocabulary size is estimated as `max(2 × the largest probe id, 131072)` and every id below
 * it is allowed (Rust: the same, so some may not exist). `numSpecialTokens` is 0.
 */
export async function loadServerTokenizer(options: ServerTokenizerOptions): Promise<Tokenizer> {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const model = options.model ?? options.id
  const headers = { 'content-type': 'application/json', ...options.headers }

  // Each answer is capped by what it can hold for its question (response-body.ts), so an endless
  // or oversized answer fails the exchange instead of filling the memory.
  const post = async (
    path: '/tokenize' | '/detokenize',
    body: object,
    maxBytes: number,
  ): Promise<Record<string, unknown>> => {
    const url = `${baseUrl}${path}`
    let response: Awaited<ReturnType<typeof request>>
    try {
      response = await request(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        ...auxRequestOptions(options.timeouts ?? {}, DEFAULT_EXCHANGE_TIMEOUT_MS),
      })
    } catch (error) {
      if (!isAuxTimeout(error)) throw error
      const { wholeMs } = auxTimeoutMs(options.timeouts ?? {}, DEFAULT_EXCHANGE_TIMEOUT_MS)
      throw new Error(`POST ${url} got no answer within ${wholeMs / 1000} s`, { cause: error })
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const text = await readBodyHead(response.body, AUX_BODY_LIMITS.messageBytes)
      throw new Error(`POST ${url} answered ${response.statusCode}: ${text.slice(0, 200)}`)
    }
    const text = await readTextCapped(response.body, maxBytes, `POST ${url}`, {
      contentLength: response.headers['content-length'],
    })
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed !== 'object' || parsed === null)
      throw new Error(`POST ${url} answered ${text.slice(0, 200)}`)
    return parsed as Record<string, unknown>
  }

  const encode = async (text: string, encodeOptions?: { addSpecialTokens?: boolean }): Promise<number[]> => {
    const answer = await post(
      '/tokenize',
      { model, prompt: text, add_special_tokens: encodeOptions?.addSpecialTokens ?? false },
      tokenizeReplyMaxBytes(text),
    )
    const tokens = answer.tokens
    if (!Array.isArray(tokens) || !tokens.every(Number.isInteger)) {
      throw new Error(`POST ${baseUrl}/tokenize answered no "tokens" array`)
    }
    return tokens as number[]
  }
  const decode = async (ids: readonly number[]): Promise<string> => {
    const answer = await post('/detokenize', { model, tokens: ids }, detokenizeReplyMaxBytes(ids.length))
    if (typeof answer.prompt !== 'string')
      throw new Error(`POST ${baseUrl}/detokenize answered no "prompt" string`)
    return answer.prompt
  }

  const probe = await encode('test')
  await decode(probe)
  const vocabSize = Math.max(2 * Math.max(0, ...probe), MIN_ESTIMATED_VOCAB_SIZE)
  return {
    id: options.id,
    kind: 'server',
    vocabSize,
    numSpecialTokens: 0,
    encode,
    decode,
    allowedTokenIds: () => Array.from({ length: vocabSize }, (_, i) => i),
  }
}
