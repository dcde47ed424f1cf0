/**
 * Conversations for `--multi-turn` read from ShareGPT (`--dataset-name sharegpt`) or from a Hugging
 * Face chat dataset (`--dataset-name hf`), as Rust reads them (datasets/multi_turn.rs): entries of 4 or more
 * messages, always shuffled, walked in (user, reply) pairs, capped at `--multi-turn-max-turns`,
 * kept with 2 or more turns, and always oversampled to `--num-prompts` conversations.
 */
import type { MultiTurnConfig } from '../../config/bench-config.ts'
import { DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import type { Tokenizer } from '../../tokenizer/index.ts'
import type { Conversation, ConversationTurn, MultiTurnDatasetContext } from '../conversation.ts'
import type { HfDatasetConfig } from './hf.ts'
import type { Row } from './hf-columns.ts'
import { loadHfRows } from './hf-source.ts'
import { downloadShareGpt, readShareGpt, type ShareGptDatasetConfig, shareGptArray } from './sharegpt.ts'

/** One message in ShareGPT form: `from` is `human`, `gpt`, `system`, … */
export interface ShareGptMessage {
  from: string
  value: string
}

/** Rust keeps entries of at least this many messages (two user turns and their replies). */
export const MIN_CONVERSATION_MESSAGES = 4
/** Conversations with fewer turns than this are dropped. */
export const MIN_CONVERSATION_TURNS = 2

const CHAT_COLUMNS = ['conversations', 'conversation', 'messages'] as const
const USER_ROLES = new Set(['human', 'user'])

/** The turn cap of a ShareGPT/hf multi-turn run: `--multi-turn-max-turns`, 0 = none. */
export function shareGptTurnCap(multiTurn: MultiTurnConfig): number | undefined {
  return multiTurn.maxTurns === 0 ? undefined : multiTurn.maxTurns
}

/**
 * The turns of one message list: pairs (i, i + 1) where message i is a non-empty user message;
 * anything else advances by one. The output asked is `outputLen`, else the reply's token count
 * (at least 1). Stops at `cap` turns.
 */
export async function conversationTurns(
  messages: readonly ShareGptMessage[],
  tokenizer: Tokenizer,
  options: { cap?: number; outputLen?: number },
): Promise<ConversationTurn[]> {
  const turns: ConversationTurn[] = []
  let i = 0
  while (i + 1 < messages.length && (options.cap === undefined || turns.length < options.cap)) {
    const user = messages[i]!
    if (!USER_ROLES.has(user.from) || user.value === '') {
      i += 1
      continue
    }
    const messageLen = (await tokenizer.encode(user.value, { addSpecialTokens: false })).length
    const expectedOutputLen =
      options.outputLen ??
      Math.max(1, (await tokenizer.encode(messages[i + 1]!.value, { addSpecialTokens: false })).length)
    turns.push({ message: user.value, messageLen, expectedOutputLen })
    i += 2
  }
  return turns
}

/**
 * The conversations of a ShareGPT file or hf chat dataset, shuffled with `seed`
 * (`--disable-shuffle` is ignored, as in Rust), oversampled to `numConversations` (always), ids
 * `${requestIdPrefix}conv-${c}`.
 */
export async function generateShareGptConversations(
  dataset: ShareGptDatasetConfig | HfDatasetConfig,
  multiTurn: MultiTurnConfig,
  context: MultiTurnDatasetContext,
): Promise<Conversation[]> {
  const { tokenizer, numConversations, seed } = context
  const source = dataset.kind === 'sharegpt' ? (dataset.path ?? 'ShareGPT') : dataset.path
  const lists =
    dataset.kind === 'sharegpt'
      ? parseShareGptConversations(await readShareGpt(dataset.path ?? (await downloadShareGpt())), source)
      : await hfConversations(dataset, context)
  const rng = createRng(seed)
  const candidates = lists.filter((messages) => messages.length >= MIN_CONVERSATION_MESSAGES)
  rng.shuffle(candidates)
  const cap = shareGptTurnCap(multiTurn)
  const kept: ConversationTurn[][] = []
  for (const messages of candidates) {
    if (kept.length >= numConversations) break
    const turns = await conversationTurns(messages, tokenizer, {
      ...(cap !== undefined ? { cap } : {}),
      ...(dataset.outputLen !== undefined ? { outputLen: dataset.outputLen } : {}),
    })
    if (turns.length >= MIN_CONVERSATION_TURNS) kept.push(turns)
  }
  if (kept.length === 0) {
    throw new DatasetError(
      `multi-turn: ${dataset.kind} ${source} has no conversation with ${MIN_CONVERSATION_TURNS} or more user turns ` +
        `(entries need ${MIN_CONVERSATION_MESSAGES} or more messages, alternating user and reply)`,
    )
  }
  const originals = kept.length
  while (kept.length < numConversations) kept.push(kept[rng.int(0, originals - 1)]!)
  return kept.map((turns, c) => ({ id: `${context.requestIdPrefix}conv-${c}`, turns }))
}

/** The `conversations` message lists of a ShareGPT JSON array; a wrongly shaped entry names its index. */
export function parseShareGptConversations(text: string, path: string): ShareGptMessage[][] {
  const data = shareGptArray(path, text)
  return data.map((item, index) => {
    const messages = toMessages((item as Row | null)?.conversations)
    if (!messages) {
      throw new DatasetError(
        `sharegpt: ${path}: entry ${index}: field "conversations" must be an array of {"from", "value"} turns`,
      )
    }
    return messages
  })
}

/** Rows of an hf chat dataset as message lists: the first chat column (`conversations`, `conversation`, `messages`). */
async function hfConversations(
  dataset: HfDatasetConfig,
  context: MultiTurnDatasetContext,
): Promise<ShareGptMessage[][]> {
  const rows = await loadHfRows({
    dataset: dataset.path,
    ...(dataset.subset !== undefined ? { subset: dataset.subset } : {}),
    ...(dataset.split !== undefined ? { split: dataset.split } : {}),
    seed: context.seed,
    disableShuffle: false,
    minRows: 2 * context.numConversations,
  })
  const column = dataset.textColumn ?? CHAT_COLUMNS.find((c) => rows.some((row) => Array.isArray(row[c])))
  if (column === undefined) {
    const columns = Object.keys(rows[0] ?? {}).join(', ')
    throw new DatasetError(
      `multi-turn: hf ${dataset.path} has no chat column (${CHAT_COLUMNS.join(', ')}); the columns are: ${columns}`,
    )
  }
  return rows.map((row) => toMessages(row[column]) ?? [])
}

/** `{from, value}` or `{role, content}` messages in ShareGPT form; undefined when it is not a message array. */
export function toMessages(value: unknown): ShareGptMessage[] | undefined {
  if (!Array.isArray(value)) return undefined
  const out: ShareGptMessage[] = []
  for (const item of value) {
    if (item === null || typeof item !== 'object') return undefined
    const m = item as Row
    const from = typeof m.from === 'string' ? m.from : typeof m.role === 'string' ? m.role : undefined
    const text = typeof m.value === 'string' ? m.value : typeof m.content === 'string' ? m.content : undefined
    if (from === undefined || text === undefined) return undefined
    out.push({ from, value: text })
  }
  return out
}
