import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { ChatMessage, SampleRequest } from '../../config/records.ts'
import { DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { applyChatTemplate } from '../../tokenizer/chat-template.ts'
import { HubError, hubFile } from '../../tokenizer/hub.ts'
import { flagRow } from '../dataset-module.ts'
import type { DatasetContext } from '../index.ts'
import { parseJsonl } from '../sampling.ts'
import type { HfDatasetConfig } from './hf.ts'
import { hubDatasetError, oversample } from './hub-sampling.ts'

/** The Berkeley Function Calling Leaderboard on the hub (Python `BFCLDataset`). */
export const BFCL_ID = 'gorilla-llm/Berkeley-Function-Calling-Leaderboard'
/** `--bfcl-categories` when not given. */
const BFCL_DEFAULT_CATEGORIES: readonly string[] = ['simple', 'live_simple', 'multiple']
export const BFCL_CATEGORIES = flagRow(
  '--bfcl-categories',
  'string',
  'hf BFCL: comma-separated v3 categories (files BFCL_v3_<category>.json).',
  { default: BFCL_DEFAULT_CATEGORIES.join(','), parity: 'python' },
)

/** `--bfcl-categories a,b`: the names, trimmed, empty ones dropped (Python). */
export function parseBfclCategories(value: string): string[] {
  return value
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '')
}

/** Output length when `--hf-output-len` is not given. */
const BFCL_DEFAULT_OUTPUT_LEN = 512

/** BFCL's own type names that JSON Schema lacks, mapped as Python maps them for grammar backends. */
const TYPE_REMAP: Readonly<Record<string, string>> = {
  dict: 'object',
  float: 'number',
  tuple: 'array',
  any: 'string',
}

const warned = new Set<string>()

/**
 * The BFCL family of `hf` (Python `BFCLDataset`). Each category is one JSON-lines file at the
 * repository root, `BFCL_v3_{category}.json`, downloaded through the hub cache (or read from a
 * local folder given as `--dataset-path`). The categories' rows are interleaved round-robin,
 * shuffled with the seed unless `disableShuffle`, and each usable row becomes one request: the
 * messages of its first turn (`question[0]`) sent as they are, with the row's `function` list
 * translated to OpenAI tools and sent as `tools` plus `"tool_choice": "auto"`, which win over
 * `--extra-body`. Needs the `openai-chat` backend. `promptLen` counts the messages rendered with
 * the tokenizer's chat template and the tools (else the message texts joined by newlines); the
 * output length is `--hf-output-len`, else 512.
 */
export async function generateBfcl(
  config: HfDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  // No backend means a completions backend (DatasetContext), which drops the tools as any other does.
  if (context.backend !== 'openai-chat') {
    throw new DatasetError(
      `hf: ${BFCL_ID} needs --backend openai-chat (it sends each request's tool schemas in chat completions); ` +
        `got --backend ${context.backend ?? 'vllm'}`,
    )
  }
  const categories = config.bfclCategories?.length ? config.bfclCategories : BFCL_DEFAULT_CATEGORIES
  const perCategory: Array<Array<Record<string, unknown>>> = []
  for (const category of categories) perCategory.push(await loadCategory(config.path, category))
  const rows: Array<Record<string, unknown>> = []
  const longest = Math.max(0, ...perCategory.map((r) => r.length))
  for (let i = 0; i < longest; i++) {
    for (const categoryRows of perCategory) if (i < categoryRows.length) rows.push(categoryRows[i]!)
  }
  const rng = createRng(context.seed)
  if (!config.disableShuffle) rng.shuffle(rows)

  const outputLen = config.outputLen ?? BFCL_DEFAULT_OUTPUT_LEN
  const requests: SampleRequest[] = []
  for (const row of rows) {
    if (requests.length >= context.numPrompts) break
    const messages = firstTurn(row.question)
    const functions = row.function
    if (messages === undefined || functions === undefined || functions === null || functions === '') continue
    const list = Array.isArray(functions) ? functions : [functions]
    if (list.length === 0) continue
    const tools = list.map((fn) => ({ type: 'function', function: translateSchema(fn) }))
    requests.push({
      prompt: messages[messages.length - 1]!.content,
      promptLen: await countPrompt(messages, tools, context),
      expectedOutputLen: outputLen,
      chatMessages: messages,
      requestOverrides: { tools, tool_choice: 'auto' },
    })
  }
  if (requests.length === 0) {
    throw new DatasetError(
      `hf: ${config.path} has no usable BFCL row in categories ${categories.join(', ')} ` +
        '(each needs a first turn of {role, content} messages and a function)',
    )
  }
  return oversample(requests, context.numPrompts, rng, config.noOversample)
}

/**
 * Python `_translate_schema`: every object's values are translated, and its `type`, when it is a
 * string BFCL uses instead of a JSON Schema type, is renamed (`dict` → `object`, `float` →
 * `number`, `tuple` → `array`, `any` → `string`).
 */
export function translateSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(translateSchema)
  if (node === null || typeof node !== 'object') return node
  const translated: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) translated[key] = translateSchema(value)
  const type = translated.type
  if (typeof type === 'string' && Object.hasOwn(TYPE_REMAP, type)) translated.type = TYPE_REMAP[type]
  return translated
}

async function loadCategory(path: string, category: string): Promise<Array<Record<string, unknown>>> {
  const filename = `BFCL_v3_${category}.json`
  const local = await stat(path).catch(() => undefined)
  let file: string
  if (local?.isDirectory()) {
    file = join(path, filename)
    if (!(await stat(file).catch(() => undefined))) throw categoryNotFound(category, filename, path)
  } else {
    try {
      file = await hubFile(path, filename, { type: 'dataset' })
    } catch (error) {
      if (error instanceof HubError && error.kind === 'entry-not-found')
        throw categoryNotFound(category, filename, path)
      throw hubDatasetError('hf', `${filename} of ${path}`, error)
    }
  }
  return parseJsonl('hf', filename, await readFile(file, 'utf8')).map((row) => row.value)
}

function categoryNotFound(category: string, filename: string, path: string): DatasetError {
  return new DatasetError(
    `hf: BFCL category "${category}" not found: ${path} has no ${filename}; ` +
      `check --bfcl-categories (default: ${BFCL_DEFAULT_CATEGORIES.join(',')})`,
  )
}

/** A BFCL message: always a string content. */
type TextMessage = ChatMessage & { content: string }

// `question` is a list of turns, each a list of messages; only the first turn is sent (as Python).
function firstTurn(question: unknown): TextMessage[] | undefined {
  if (!Array.isArray(question) || !Array.isArray(question[0]) || question[0].length === 0) return undefined
  const messages: TextMessage[] = []
  for (const message of question[0] as unknown[]) {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown }
    if (typeof role !== 'string' || typeof content !== 'string') return undefined
    messages.push({ role, content })
  }
  return messages
}

/**
 * Python renders the messages with the tools through the chat template to count the prompt; when
 * the tokenizer has no template, or the template fails, it counts the message texts joined by
 * newlines, and says so once.
 */
async function countPrompt(
  messages: TextMessage[],
  tools: unknown[],
  context: DatasetContext,
): Promise<number> {
  const { tokenizer } = context
  let text: string | undefined
  if (tokenizer.chatTemplate !== undefined) {
    try {
      text = applyChatTemplate(tokenizer, messages, {
        ...context.chatTemplateKwargs,
        tools,
        addGenerationPrompt: true,
      })
    } catch (error) {
      warnOnce(`the chat template failed (${(error as Error).message})`)
    }
  } else {
    warnOnce(`the tokenizer "${tokenizer.id}" has no chat template`)
  }
  text ??= messages.map((m) => m.content).join('\n')
  return (await tokenizer.encode(text, { addSpecialTokens: true })).length
}

function warnOnce(why: string): void {
  if (warned.has(why)) return
  warned.add(why)
  console.warn(
    `servebench: hf BFCL: ${why}, so prompt lengths count the message texts only ` +
      "(the server's usage.prompt_tokens replaces them when it reports one)",
  )
}
