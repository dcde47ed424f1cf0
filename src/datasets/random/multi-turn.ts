/**
 * Synthetic conversations for `--multi-turn` with `--dataset-name random` (Rust: datasets/multi_turn.rs): a turn count
 * per conversation, one user message per turn of exact token length, and optional 3-tier prefix
 * sharing (a block common to every conversation, one common to a conversation's turns, a unique
 * tail). Rust: multi-turn random generation (datasets/random.rs, multi_turn.rs).
 */
import type { MultiTurnConfig } from '../../config/bench-config.ts'
import { f } from '../../config/dsl-fields.ts'
import { ConfigError, DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import type { Tokenizer } from '../../tokenizer/index.ts'
import type { Conversation, ConversationTurn, MultiTurnDatasetContext } from '../conversation.ts'
import { type DslDoor, type DslFieldTable, defineDataset } from '../dataset-module.ts'
import { decodeToTargetLen } from '../decode-to-target.ts'
import type { HfDatasetSpec } from '../hub/hf.ts'
import type { ShareGptDatasetSpec } from '../hub/sharegpt.ts'
import { RANDOM_INPUT_LEN, RANDOM_OUTPUT_LEN } from './lengths.ts'
import type { RandomDatasetConfig } from './random.ts'

/**
 * Options of `datasets.multiTurn` (`--multi-turn`): synthetic conversations (`--dataset-name
 * random`), or real ones read from `source: datasets.sharegpt(...)` or `datasets.hf(...)`.
 */
export interface MultiTurnDatasetOptions {
  /**
   * Where the conversations come from: a ShareGPT file or an hf chat dataset (entries of 4+
   * messages; 2+ user turns kept). The lengths options and `prefix*Ratio` then do not apply, and
   * `maxTurns` caps the turns read (0 = no cap). @default synthetic conversations
   */
  source?: ShareGptDatasetSpec | HfDatasetSpec
  /** Prompt tokens of each conversation's first message. @default 1024 */
  inputLen?: number
  /** Prompt tokens of later messages (`--per-turn-input-len`); 0 = `inputLen`. @default 0 */
  perTurnInputLen?: number
  /** Output tokens asked per turn. @default 128 */
  outputLen?: number
  /** Conversations in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Turns per conversation. @default 3 */
  numTurns?: number
  /** Fewest turns; 0 = `numTurns`. @default 0 */
  minTurns?: number
  /** Most turns; 0 = `numTurns`. @default 0 */
  maxTurns?: number
  /** Think time between turns, ms; no concurrency slot is held. @default 0 */
  delayMs?: number
  /** Most turns in flight. @default the load's maxConcurrency, else numPrompts */
  concurrency?: number
  /** Share of each message common to every conversation; > 0 sends turns without history. @default 0 */
  prefixGlobalRatio?: number
  /** Share of each message common within a conversation; > 0 sends turns without history. @default 0 */
  prefixConversationRatio?: number
  /** Keep sending a conversation's turns after one fails. @default false */
  continueOnFailure?: boolean
}

/**
 * `datasets.multiTurn()`: `--multi-turn` over `random` (or over sharegpt or hf, through `source`).
 * Its flags are run-mode flags (`--multi-turn-*`, read by `config/resolve-run-modes.ts`); its
 * conversations come from the `conversations` hook of `random` or of its source: no resolver or
 * generator of its own. Its DSL hook sets `--multi-turn` and reads `source`.
 */
export const multiTurnDataset = defineDataset<never, MultiTurnDatasetOptions, 'multi-turn'>({
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
  dsl: {
    keys: ['source'],
    toFlags(options, door) {
      door.set('--multi-turn', true, 'dataset')
      if (options.source !== undefined) readSource(options.source, door)
    },
    words: [['--dataset-name random', 'datasets.multiTurn() without a source']],
  },
})

/** The datasets a multi-turn `source` may be. */
const SOURCE_KINDS: readonly string[] = ['sharegpt', 'hf']

/** `source: datasets.sharegpt(...)` or `datasets.hf(...)`: its `--dataset-name` and its fields. */
function readSource(source: unknown, door: DslDoor): void {
  const kind = typeof source === 'object' && source !== null ? (source as { kind?: unknown }).kind : undefined
  const spec = typeof kind === 'string' && SOURCE_KINDS.includes(kind) ? door.datasetOf(kind) : undefined
  if (spec === undefined) {
    door.issue('dataset.source', 'must be datasets.sharegpt(...) or datasets.hf(...)')
    return
  }
  door.set('--dataset-name', spec.datasetName, 'dataset.source')
  door.fields(source, spec.fields, 'dataset.source', `datasets.${spec.builder}()`, ['kind'])
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
