import { describe, expect, test } from 'vitest'
import type { Conversation } from '../conversation.ts'
import { filterConversationsByMaxModelLen, fitConversations } from './multi-turn-filter.ts'

const conv = (id: string, turns: Array<[number, number]>): Conversation => ({
  id,
  turns: turns.map(([messageLen, expectedOutputLen]) => ({ message: 'x', messageLen, expectedOutputLen })),
})
const lens = (c: Conversation): Array<[number, number]> =>
  c.turns.map((t) => [t.messageLen, t.expectedOutputLen])

// Vectors of the Rust port's multi-turn history filter tests (datasets/multi_turn.rs).
describe('filterConversationsByMaxModelLen', () => {
  test('history: [(40,10),(45,10)] keeps 2 turns at 105 and 1 at 104 (the bound is inclusive)', () => {
    const c = conv('a', [
      [40, 10],
      [45, 10],
    ])
    expect(filterConversationsByMaxModelLen([c], 105, false).conversations[0]!.turns).toHaveLength(2)
    const at104 = filterConversationsByMaxModelLen([c], 104, false)
    // One turn left of two: the conversation is dropped.
    expect(at104.conversations).toHaveLength(0)
    expect(at104.removedConversations).toBe(1)
  })

  test('history at 105: one conversation removed, 3 turns removed, the other keeps 2 turns', () => {
    const outcome = filterConversationsByMaxModelLen(
      [
        conv('a', [
          [40, 10],
          [45, 10],
          [1, 1],
        ]),
        conv('b', [
          [100, 10],
          [1, 1],
        ]),
      ],
      105,
      false,
    )
    expect(outcome.removedConversations).toBe(1)
    expect(outcome.removedTurns).toBe(3)
    expect(outcome.conversations.map((c) => c.id)).toEqual(['a'])
    expect(lens(outcome.conversations[0]!)).toEqual([
      [40, 10],
      [45, 10],
    ])
  })

  test('no history at 104: each turn alone; (95,10) goes, 2 turns stay, no conversation removed', () => {
    const outcome = filterConversationsByMaxModelLen(
      [
        conv('a', [
          [40, 10],
          [95, 10],
          [1, 1],
        ]),
      ],
      104,
      true,
    )
    expect(outcome.removedConversations).toBe(0)
    expect(outcome.removedTurns).toBe(1)
    expect(lens(outcome.conversations[0]!)).toEqual([
      [40, 10],
      [1, 1],
    ])
  })

  test('a one-turn conversation that fits is kept', () => {
    expect(filterConversationsByMaxModelLen([conv('a', [[10, 5]])], 15, false).conversations).toHaveLength(1)
  })
})

describe('fitConversations', () => {
  test('logs what it removed, and names --max-model-len when nothing fits', () => {
    const lines: string[] = []
    const kept = fitConversations(
      [
        conv('a', [
          [40, 10],
          [45, 10],
          [1, 1],
        ]),
      ],
      105,
      false,
      (l) => lines.push(l),
    )
    expect(kept[0]!.turns).toHaveLength(2)
    expect(lines).toEqual(['Filtered out 1 turns and 0 conversations longer than --max-model-len 105.'])
    expect(() => fitConversations([conv('a', [[100, 10]])], 50, false, () => {})).toThrow(
      '--max-model-len 50: no conversation keeps a turn that fits (history + message + expected output); raise it or shorten the conversations',
    )
  })
})
