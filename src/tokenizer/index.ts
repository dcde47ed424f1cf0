import { basename, dirname } from 'node:path'
import { TokenizerError } from '../errors.ts'
import { CHAT_TEMPLATE_FILE } from './chat-template.ts'
import { findLocalTokenizer, loadHfTokenizer } from './hf.ts'
import { HubError, hubFile } from './hub.ts'
import { findCachedFile, hubCacheDir, isRepoId } from './hub-cache.ts'
import { loadServerTokenizer, type ServerTokenizerOptions } from './server.ts'
import { isTiktokenEncoding, loadTiktoken, TIKTOKEN_ENCODINGS } from './tiktoken.ts'

/** A loaded tokenizer. Methods are async because the server fallback asks over HTTP. */
export interface Tokenizer {
  /** The id it was loaded for (`--tokenizer`, else the model id). */
  readonly id: string
  readonly kind: 'hf' | 'tiktoken' | 'server'
  /** Number of token ids, added and special tokens included (server: an estimate). */
  readonly vocabSize: number
  /** Tokens the tokenizer adds around an empty string (HF: encode('', add special).length; tiktoken/server: 0). */
  readonly numSpecialTokens: number
  /** @param options.addSpecialTokens add BOS/EOS and the like. @default false */
  encode(text: string, options?: { addSpecialTokens?: boolean }): Promise<number[]>
  /** @param options.skipSpecialTokens @default true (the server fallback cannot skip them) */
  decode(ids: readonly number[], options?: { skipSpecialTokens?: boolean }): Promise<string>
  /** Vocabulary ids minus special/added tokens, ascending; used to build random prompts. A fresh copy. */
  allowedTokenIds(): number[]
  /**
   * The Jinja chat template (HF only): `chat_template.jinja` when the tokenizer has one, else the
   * `chat_template` of `tokenizer_config.json`. Render it with `applyChatTemplate`.
   */
  readonly chatTemplate?: string
  /** `bos_token`, `eos_token`, … from `tokenizer_config.json`, which a chat template may read. */
  readonly specialTokensMap?: Readonly<Record<string, string>>
}

export interface LoadTokenizerOptions {
  /** `--tokenizer`, else the model id: a tiktoken name, a tokenizer.json path, a folder, or a hub id. */
  id: string
  /** For the server fallback: POST {baseUrl}/tokenize and /detokenize. */
  baseUrl?: string
  /** Sent in /tokenize bodies; defaults to `id`. */
  model?: string
  headers?: Record<string, string>
  /** `--tokenizer-mode`: accepted; values other than 'auto' warn once. */
  mode?: string
  /** `--trust-remote-code`: accepted, unused. */
  trustRemoteCode?: boolean
  /** The run's timeouts, for the server's `/tokenize` and `/detokenize`. @default 300 s each */
  timeouts?: ServerTokenizerOptions['timeouts']
  /**
   * True when `id` was named by the user (`--tokenizer`, `endpoint({ tokenizer })`): a name that
   * loads from nowhere is then an error, not a silent fall-back to the server's `/tokenize`
   * (ask for that with {@link SERVER_TOKENIZER}). @default false (the id is the model's)
   */
  named?: boolean
}

/** The tokenizer name that asks for the server's `/tokenize` and `/detokenize` explicitly. */
export const SERVER_TOKENIZER = 'server'

const loaded = new Map<string, Promise<Tokenizer>>()
let warnedMode = false

/**
 * Loads a tokenizer through the chain (Rust: `load_tokenizer`): (0) a built-in tiktoken name;
 * (1) a local tokenizer.json, or a folder that holds one; (2) a hub id found in the local Hugging
 * Face cache; (3) the same id downloaded from the hub into that cache (not with `HF_HUB_OFFLINE`);
 * (4) the server's /tokenize and /detokenize. Loaded tokenizers are kept for the life
 * of the process, keyed by id and server. Throws a `TokenizerError` listing each stage's failure.
 */
export function loadTokenizer(options: LoadTokenizerOptions): Promise<Tokenizer> {
  if (options.mode !== undefined && options.mode !== 'auto' && !warnedMode) {
    warnedMode = true
    console.warn(`servebench: --tokenizer-mode ${options.mode} is ignored; tokenizers load as 'auto'`)
  }
  const key = JSON.stringify([options.id, options.baseUrl ?? null, options.model ?? null])
  let tokenizer = loaded.get(key)
  if (tokenizer === undefined) {
    tokenizer = runChain(options)
    loaded.set(key, tokenizer)
    tokenizer.catch(() => loaded.delete(key))
  }
  return tokenizer
}

/** Forgets every loaded tokenizer (tests that change `HF_HOME` between loads). @experimental */
export function clearTokenizerCache(): void {
  loaded.clear()
}

async function runChain(options: LoadTokenizerOptions): Promise<Tokenizer> {
  const { id } = options
  const failures: string[] = []
  if (options.named === true && id === SERVER_TOKENIZER) return serverStage(options, failures, true)

  if (isTiktokenEncoding(id)) return loadTiktoken(id)
  failures.push(`tiktoken: not a built-in encoding (${TIKTOKEN_ENCODINGS.join(', ')})`)

  const local = await findLocalTokenizer(id)
  if (typeof local === 'string') failures.push(`local file: ${local}`)
  else {
    try {
      return await loadHfTokenizer(id, local)
    } catch (error) {
      failures.push(`local file: cannot load ${local.tokenizerPath}: ${messageOf(error)}`)
    }
  }

  if (!isRepoId(id)) failures.push(`Hugging Face cache: "${id}" is not a model id`)
  else {
    const cached = await findCachedFile(id, 'tokenizer.json')
    if ('reason' in cached)
      failures.push(`Hugging Face cache: ${id} is not in ${hubCacheDir()} (${cached.reason})`)
    else {
      const config = await findCachedFile(id, 'tokenizer_config.json')
      const template = await findCachedFile(id, CHAT_TEMPLATE_FILE)
      try {
        return await loadHfTokenizer(id, {
          tokenizerPath: cached.path,
          ...('path' in config ? { configPath: config.path } : {}),
          ...('path' in template ? { chatTemplatePath: template.path } : {}),
        })
      } catch (error) {
        failures.push(`Hugging Face cache: cannot load ${cached.path}: ${messageOf(error)}`)
      }
    }
  }

  if (isRepoId(id)) {
    const downloaded = await downloadTokenizer(id)
    if (typeof downloaded === 'string') failures.push(`Hugging Face hub: ${downloaded}`)
    else return downloaded
  }

  if (options.named === true) {
    failures.push(
      `server: not tried for a named tokenizer (pass --tokenizer ${SERVER_TOKENIZER} to use /tokenize)`,
    )
    throw chainError(id, failures)
  }
  return serverStage(options, failures, false)
}

// The last stage: the server's /tokenize and /detokenize.
async function serverStage(
  options: LoadTokenizerOptions,
  failures: string[],
  only: boolean,
): Promise<Tokenizer> {
  if (options.baseUrl === undefined) failures.push('server: no base URL to send /tokenize to')
  else {
    try {
      return await loadServerTokenizer({
        id: only && options.model !== undefined ? options.model : options.id,
        baseUrl: options.baseUrl,
        ...(options.model !== undefined ? { model: options.model } : {}),
        ...(options.headers !== undefined ? { headers: options.headers } : {}),
        ...(options.timeouts !== undefined ? { timeouts: options.timeouts } : {}),
      })
    } catch (error) {
      failures.push(`server: ${messageOf(error)}`)
    }
  }
  throw chainError(options.id, failures)
}

function chainError(id: string, failures: string[]): TokenizerError {
  return new TokenizerError(
    `Cannot load a tokenizer for "${id}":\n${failures.map((f) => `  - ${f}`).join('\n')}\n` +
      'Pass --tokenizer with a tiktoken encoding name, a path to tokenizer.json, or a folder that holds one.',
  )
}

// Downloads tokenizer.json, then tokenizer_config.json and chat_template.jinja when the repository
// has them, into the hub cache. Returns the reason as a string when it cannot, so the chain goes
// on to the server. As transformers does, the optional files are asked for at the commit
// tokenizer.json came from: the three match even if `main` moves meanwhile, and a file the hub
// said was missing (`.no_exist/<commit>/`) is not asked for again.
async function downloadTokenizer(id: string): Promise<Tokenizer | string> {
  let tokenizerPath: string
  try {
    tokenizerPath = await hubFile(id, 'tokenizer.json')
  } catch (error) {
    return messageOf(error)
  }
  const commit = basename(dirname(tokenizerPath))
  const optional: Array<string | undefined> = []
  for (const filename of ['tokenizer_config.json', CHAT_TEMPLATE_FILE]) {
    try {
      optional.push(await hubFile(id, filename, { revision: commit }))
    } catch (error) {
      if (!(error instanceof HubError && error.kind === 'entry-not-found')) return messageOf(error)
      optional.push(undefined)
    }
  }
  const [configPath, chatTemplatePath] = optional
  try {
    return await loadHfTokenizer(id, {
      tokenizerPath,
      ...(configPath ? { configPath } : {}),
      ...(chatTemplatePath ? { chatTemplatePath } : {}),
    })
  } catch (error) {
    return `cannot load ${tokenizerPath}: ${messageOf(error)}`
  }
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return `${message}${cause}`
}
