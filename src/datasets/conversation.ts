/**
 * What `--multi-turn` runs send: conversations of user turns. A dataset module that `--multi-turn`
 * can read (`random`, `sharegpt`, `hf`) builds them through its `conversations` hook.
 */
import type { Tokenizer } from '../tokenizer/index.ts'

/** One user turn: the message text, its token count, and the output length asked for. */
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

/** What every conversation builder gets besides its dataset's config and the `--multi-turn*` flags. */
export interface MultiTurnDatasetContext {
  tokenizer: Tokenizer
  /** Conversations to build (`--num-prompts`). */
  numConversations: number
  seed: number
  /** Conversation ids are `${requestIdPrefix}conv-${c}`. */
  requestIdPrefix: string
}
