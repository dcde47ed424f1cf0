/**
 * Synthetic conversations for `--multi-turn` with `--dataset-name random` (Rust §4.11): a turn count
 * per conversation, one user message per turn of exact token length, and optional 3-tier prefix
 * sharing (a block common to every conversation, one common to a conversation's turns, a unique
 * tail). Rust: multi-turn random generation (datasets/random.rs, multi_turn.rs).
 */
import type { MultiTurnConfig, RandomDatasetConfig } from '../../config/bench-config.ts'
import type { MultiTurnDatasetOptions } from '../../config/dsl-datasets.ts'
import { f } from '../../config/dsl-fields.ts'
import { ConfigError, DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import type { Tokenizer } from '../../tokenizer/index.ts'
import { type DslFieldTable, defineDataset } from '../dataset-module.ts'
import { decodeToTargetLen } from '../decode-to-target.ts'
import { RANDOM_INPUT_LEN, RANDOM_OUTPUT_LEN } from './lengths.ts'

/** One user turn: the message text, its token count, and the output length asked for. */
/**
 * `datasets.multiTurn()`: `--multi-turn` over `random` (or over sharegpt or hf, through `source`).
 * Its flags are run-mode flags (`--multi-turn-*`, read by `config/resolve-run-modes.ts`), its
 * requests come from the multi-turn runner: no resolver or generator of its own.
 */
export const multiTurnDataset = defineDataset<'random'>({
  kind: 'multi-turn',
  summary: 'synthetic conversations sent turn by turn (`openai-chat`)',
  datasetName: 'random',
  builder: 'multiTurn',
  fields: {
    inputLen: f(RANDOM_INPUT_LEN.name),
    outputLen: f(RANDOM_OUTPUT_LEN.name),
    numPrompts: f('--num-prompts'),
    perTurnInputLen: f('--per-turn-input-len'),
    numTurns: f('--multi-turn-num-turns'),
    minTurns: f('--multi-turn-min-turns'),
    maxTurns: f('--multi-turn-max-turns'),
    delayMs: f('--multi-turn-delay-ms'),
    concurrency: f('--multi-turn-concurrency'),
    prefixGlobalRatio: f('--multi-turn-prefix-global-ratio'),
    prefixConversationRatio: f('--multi-turn-prefix-conversation-ratio'),
    continueOnFailure: f('--multi-turn-continue-on-failure', 'switch'),
  } satisfies Omit<DslFieldTable<MultiTurnDatasetOptions>, 'source'>,
  flags: [RANDOM_INPUT_LEN, RANDOM_OUTPUT_LEN],
})

export interface ConversationTurn {
  message: string
  messageLen: number
  expectedOutputLen: number
}

/** One conversation: its id (sent as `X-Session-ID`) and its turns in order. */
export interface Conversation {
  id: string
  turns: ConversationTurn[]
}

export interface MultiTurnDatasetContext {
  tokenizer: Tokenizer
  /** Conversations to build (`--num-prompts`). */
  numConversations: number
  seed: number
  /** Conversation ids are `${requestIdPrefix}conv-${c}`. */
  requestIdPrefix: string
}

/** Rust seeds the shared prefix apart from the per-turn draws. */
const PREFIX_SEED_OFFSET = 0xdead

/** Rust's min/max normalisation: 0 means "the configured number of turns". */
export function turnBounds(config: MultiTurnConfig): { min: number; max: number } {
  const min = config.minTurns === 0 ? config.numTurns : config.minTurns
  const max = config.maxTurns === 0 ? config.numTurns : config.maxTurns
  return { min, max }
}

/** Whether the prefix ratios switch to no-history mode (each turn sent alone). */
export function isNoHistory(config: MultiTurnConfig): boolean {
  return config.prefixGlobalRatio > 0 || config.prefixConversationRatio > 0
}

/**
 * Builds the conversations. Every turn count is drawn first, then every turn's offset, so the
 * messages of a conversation do not depend on how many turns the others have.
 */
export async function generateMultiTurnConversations(
  dataset: RandomDatasetConfig,
  multiTurn: MultiTurnConfig,
  context: MultiTurnDatasetContext,
): Promise<Conversation[]> {
  const { tokenizer, numConversations, seed } = context
  const { min, max } = turnBounds(multiTurn)
  const allowed = tokenizer.allowedTokenIds()
  if (allowed.length === 0)
    throw new DatasetError(`multi-turn: tokenizer "${tokenizer.id}" has no usable token ids`)
  const realInput = Math.max(1, dataset.inputLen - tokenizer.numSpecialTokens)
  const perTurn = multiTurn.perTurnInputLen > 0 ? multiTurn.perTurnInputLen : dataset.inputLen
  const realPerTurn = Math.max(1, perTurn - tokenizer.numSpecialTokens)
  const rng = createRng(seed)
  const turnCounts = Array.from({ length: numConversations }, () => rng.int(min, max))
  const offsets = turnCounts.map((n) => Array.from({ length: n }, () => rng.int(0, tokenizer.vocabSize - 1)))

  const block = async (offset: number, len: number): Promise<string> => {
    if (len <= 0) return ''
    const ids = Array.from({ length: len }, (_, j) => allowed[(offset + j) % allowed.length]!)
    return (await decodeToTargetLen(tokenizer, ids, len, allowed)).prompt
  }
  const prefix = await randomPrefix(tokenizer, dataset.prefixLen, seed, allowed)
  const noHistory = isNoHistory(multiTurn)
  const globalLen = Math.floor(realInput * multiTurn.prefixGlobalRatio)
  const convLen = Math.floor(realInput * multiTurn.prefixConversationRatio)
  if (noHistory && realPerTurn <= globalLen + convLen) {
    throw new ConfigError([
      {
        path: '--multi-turn-prefix-global-ratio',
        message: `leaves no unique tokens: shared prefixes take ${globalLen + convLen} of ${realPerTurn} tokens per turn; lower the ratios or raise --per-turn-input-len`,
      },
    ])
  }
  const globalText = noHistory ? await block(rng.int(0, tokenizer.vocabSize - 1), globalLen) : ''
  const baseConvOffset = rng.int(0, tokenizer.vocabSize - 1)

  const conversations: Conversation[] = []
  for (let c = 0; c < numConversations; c++) {
    const convText = noHistory ? await block(baseConvOffset + c, convLen) : ''
    const turns: ConversationTurn[] = []
    for (let t = 0; t < turnCounts[c]!; t++) {
      const fullLen = t === 0 ? realInput : realPerTurn
      const start = offsets[c]![t]! + c * max + t
      let message: string
      if (noHistory) {
        message = prefix + globalText + convText + (await block(start, fullLen - globalLen - convLen))
      } else {
        message = (t === 0 ? prefix : '') + (await block(start, fullLen))
      }
      const messageLen = (await tokenizer.encode(message, { addSpecialTokens: false })).length
      turns.push({ message, messageLen, expectedOutputLen: dataset.outputLen })
    }
    conversations.push({ id: `${context.requestIdPrefix}conv-${c}`, turns })
  }
  return conversations
}

async function randomPrefix(
  tokenizer: Tokenizer,
  len: number,
  seed: number,
  allowed: number[],
): Promise<string> {
  if (len <= 0) return ''
  const rng = createRng(seed + PREFIX_SEED_OFFSET)
  const ids = Array.from({ length: len }, () => allowed[rng.int(0, allowed.length - 1)]!)
  return (await decodeToTargetLen(tokenizer, ids, len, allowed)).prompt
}
