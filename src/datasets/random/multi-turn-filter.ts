import { DatasetError } from '../../errors.ts'
import type { Conversation } from '../conversation.ts'

/** What `--max-model-len` took out of the conversations. */
export interface ConversationFilterOutcome {
  conversations: Conversation[]
  removedConversations: number
  removedTurns: number
}

/**
 * Rust's multi-turn `--max-model-len` filter (datasets/multi_turn.rs). With history, a conversation keeps its
 * longest run of first turns in which the history so far (user + output tokens of the turns
 * before), this message and its output fit; without history, each turn must fit alone. A
 * conversation that ends with no turn, or with 1 turn where it had more, is dropped.
 */
export function filterConversationsByMaxModelLen(
  conversations: readonly Conversation[],
  maxModelLen: number,
  noHistory: boolean,
): ConversationFilterOutcome {
  const kept: Conversation[] = []
  let removedTurns = 0
  for (const conv of conversations) {
    const fits = (len: number): boolean => len <= maxModelLen
    let turns = conv.turns
    if (noHistory) turns = turns.filter((t) => fits(t.messageLen + t.expectedOutputLen))
    else {
      let cumulative = 0
      let n = 0
      for (const t of turns) {
        if (!fits(cumulative + t.messageLen + t.expectedOutputLen)) break
        cumulative += t.messageLen + t.expectedOutputLen
        n++
      }
      turns = turns.slice(0, n)
    }
    const dropped = turns.length === 0 || (turns.length < 2 && conv.turns.length >= 2)
    removedTurns += conv.turns.length - (dropped ? 0 : turns.length)
    if (!dropped) kept.push({ ...conv, turns })
  }
  return { conversations: kept, removedConversations: conversations.length - kept.length, removedTurns }
}

/** {@link filterConversationsByMaxModelLen} for a run: logs what was removed; nothing left is an error. */
export function fitConversations(
  conversations: Conversation[],
  maxModelLen: number | undefined,
  noHistory: boolean,
  log: (line: string) => void,
): Conversation[] {
  if (maxModelLen === undefined) return conversations
  const outcome = filterConversationsByMaxModelLen(conversations, maxModelLen, noHistory)
  if (outcome.conversations.length === 0) {
    throw new DatasetError(
      `--max-model-len ${maxModelLen}: no conversation keeps a turn that fits (history + message + expected output); raise it or shorten the conversations`,
    )
  }
  if (outcome.removedTurns > 0) {
    log(
      `Filtered out ${outcome.removedTurns} turns and ${outcome.removedConversations} conversations longer than --max-model-len ${maxModelLen}.`,
    )
  }
  return outcome.conversations
}
