import { readFile, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers'
import { CHAT_TEMPLATE_FILE, readChatTemplateConfig } from './chat-template.ts'
import { hfSpaceSplitting } from './hf-splitting.ts'
import type { Tokenizer } from './index.ts'
import { withTextSplitting } from './splitting.ts'

/** Where a Hugging Face tokenizer lives on disk. */
export interface TokenizerFiles {
  /** Path to `tokenizer.json`. */
  tokenizerPath: string
  /** Path to `tokenizer_config.json`, when there is one next to it. */
  configPath?: string
  /** Path to `chat_template.jinja`, when there is one next to it; its template wins over the config's. */
  chatTemplatePath?: string
}

/**
 * Resolves `id` as a local `tokenizer.json` (any JSON file path) or a folder that holds one.
 * Returns a reason string when `id` is not usable, so the loader chain can report it.
 */
export async function findLocalTokenizer(id: string): Promise<TokenizerFiles | string> {
  const info = await stat(id).catch(() => undefined)
  if (info === undefined) return `"${id}" is not a local file or folder`
  const tokenizerPath = info.isDirectory() ? join(id, 'tokenizer.json') : id
  if (info.isDirectory() && !(await isFile(tokenizerPath))) return `folder "${id}" holds no tokenizer.json`
  const configPath = join(dirname(tokenizerPath), 'tokenizer_config.json')
  const chatTemplatePath = join(dirname(tokenizerPath), CHAT_TEMPLATE_FILE)
  return {
    tokenizerPath,
    ...((await isFile(configPath)) ? { configPath } : {}),
    ...((await isFile(chatTemplatePath)) ? { chatTemplatePath } : {}),
  }
}

/**
 * Loads a Hugging Face `tokenizer.json` (and its `tokenizer_config.json`, for added and special
 * tokens and the chat template, and `chat_template.jinja`, whose template wins over the config's). `numSpecialTokens` is the number of ids added around an empty string (a BOS, say).
 */
export async function loadHfTokenizer(id: string, files: TokenizerFiles): Promise<Tokenizer> {
  const json: unknown = JSON.parse(await readFile(files.tokenizerPath, 'utf8'))
  const config: unknown = files.configPath ? JSON.parse(await readFile(files.configPath, 'utf8')) : {}
  const tokenizer = new HfTokenizer(json as object, config as object)
  speedUpBpeMerges(tokenizer.model)
  const numSpecialTokens = tokenizer.encode('', { add_special_tokens: true }).ids.length
  // Python draws random prompts from the model vocabulary without added tokens (special or not:
  // `vocab_size` excludes them all), so control tokens never land in a prompt.
  const allowed = [...tokenizer.get_vocab(false).values()].sort((a, b) => a - b)
  let vocabSize = 0
  for (const id of tokenizer.get_vocab(true).values()) vocabSize = Math.max(vocabSize, id + 1)
  const fileTemplate = files.chatTemplatePath ? await readFile(files.chatTemplatePath, 'utf8') : undefined
  const { template, specialTokensMap } = readChatTemplateConfig(config, fileTemplate)
  const loaded: Tokenizer = {
    id,
    kind: 'hf',
    vocabSize,
    numSpecialTokens,
    encode: async (text, options) =>
      tokenizer.encode(text, { add_special_tokens: options?.addSpecialTokens ?? false }).ids,
    decode: async (ids, options) =>
      tokenizer.decode(ids as number[], { skip_special_tokens: options?.skipSpecialTokens ?? true }),
    allowedTokenIds: () => allowed.slice(),
    ...(template !== undefined ? { chatTemplate: template } : {}),
    specialTokensMap,
  }
  const splitting = hfSpaceSplitting(json, config, tokenizer, vocabSize)
  return splitting === undefined ? loaded : withTextSplitting(loaded, splitting)
}

// The BPE model looks up each candidate merge with `JSON.stringify([left, right])` as the map
// key, which is half of the encode time on 1024-token random prompts. A two-level map gives the
// same ranks (last duplicate wins, as in `new Map(entries)`) at about twice the speed. Only
// applied when the model has the shape we expect; otherwise the library's path is kept.
function speedUpBpeMerges(model: unknown): void {
  const bpe = model as { bpe_ranks?: unknown; merges?: unknown; add_node?: unknown }
  if (!(bpe.bpe_ranks instanceof Map) || !Array.isArray(bpe.merges) || typeof bpe.add_node !== 'function') {
    return
  }
  const ranks = new Map<string, Map<string, number>>()
  for (const [index, merge] of (bpe.merges as unknown[]).entries()) {
    if (!Array.isArray(merge) || typeof merge[0] !== 'string' || typeof merge[1] !== 'string') return
    let right = ranks.get(merge[0])
    if (right === undefined) {
      right = new Map()
      ranks.set(merge[0], right)
    }
    right.set(merge[1], index)
  }
  interface MergeNode {
    token: string
    bias: number
    score?: number
    next: MergeNode
  }
  bpe.add_node = (queue: { push(node: MergeNode): void }, node: MergeNode): void => {
    const rank = ranks.get(node.token)?.get(node.next.token)
    if (rank !== undefined) {
      node.score = rank + node.bias
      queue.push(node)
    }
  }
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false
}
