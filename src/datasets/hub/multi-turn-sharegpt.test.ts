import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { MultiTurnConfig } from '../../config/bench-config.ts'
import { loadTokenizer } from '../../tokenizer/index.ts'
import {
  conversationTurns,
  generateShareGptConversations,
  parseShareGptConversations,
  shareGptTurnCap,
  toMessages,
} from './multi-turn-sharegpt.ts'
import type { ShareGptDatasetConfig } from './sharegpt.ts'

const FIXTURE = join(import.meta.dirname, '../../../fixtures/datasets/sharegpt-multi-turn.json')
const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
const multiTurn = (maxTurns: number): MultiTurnConfig => ({
  numTurns: 3,
  minTurns: 0,
  maxTurns,
  perTurnInputLen: 0,
  delayMs: 0,
  prefixGlobalRatio: 0,
  prefixConversationRatio: 0,
  continueOnFailure: false,
})
const sharegpt = (extra: Partial<ShareGptDatasetConfig> = {}): ShareGptDatasetConfig => ({
  kind: 'sharegpt',
  path: FIXTURE,
  disableShuffle: false,
  noOversample: false,
  ...extra,
})
const context = (numConversations: number, seed = 0) => ({
  tokenizer,
  numConversations,
  seed,
  requestIdPrefix: 'mt-',
})

describe('conversationTurns', () => {
  test('walks (user, reply) pairs, skips a system message and an empty user message, and caps', async () => {
    const messages = [
      { from: 'system', value: 'Be brief.' },
      { from: 'human', value: 'one two' },
      { from: 'gpt', value: 'three four five' },
      { from: 'human', value: '' },
      { from: 'user', value: 'six' },
      { from: 'assistant', value: '' },
    ]
    const turns = await conversationTurns(messages, tokenizer, {})
    expect(turns.map((t) => t.message)).toEqual(['one two', 'six'])
    expect(turns.map((t) => t.messageLen)).toEqual([2, 1])
    // The reply's tokens, at least 1 (the empty reply).
    expect(turns.map((t) => t.expectedOutputLen)).toEqual([3, 1])
    expect(await conversationTurns(messages, tokenizer, { cap: 1, outputLen: 7 })).toEqual([
      { message: 'one two', messageLen: 2, expectedOutputLen: 7 },
    ])
  })
})

describe('shareGptTurnCap', () => {
  // As the Rust port's config tests (config.rs): no --multi-turn-max-turns → no cap; 2 and 20 are caps.
  test('0 is no cap; any other value caps', () => {
    expect(shareGptTurnCap(multiTurn(0))).toBeUndefined()
    expect(shareGptTurnCap(multiTurn(2))).toBe(2)
    expect(shareGptTurnCap(multiTurn(20))).toBe(20)
  })
})

describe('generateShareGptConversations', () => {
  test('keeps entries of 4+ messages with 2+ turns, shuffled by seed, ids conv-<c>', async () => {
    const convs = await generateShareGptConversations(sharegpt(), multiTurn(0), context(6))
    expect(convs.map((c) => c.id)).toEqual([
      'mt-conv-0',
      'mt-conv-1',
      'mt-conv-2',
      'mt-conv-3',
      'mt-conv-4',
      'mt-conv-5',
    ])
    // The six entries of 4+ messages have 2, 3, 4, 2, 3 and 4 user turns; the short entry is left out.
    expect(convs.map((c) => c.turns.length).sort()).toEqual([2, 2, 3, 3, 4, 4])
    expect(convs.flatMap((c) => c.turns).every((t) => !t.message.startsWith('Hi there'))).toBe(true)
    const again = await generateShareGptConversations(sharegpt(), multiTurn(0), context(6))
    expect(again).toEqual(convs)
    const other = await generateShareGptConversations(sharegpt(), multiTurn(0), context(6, 1))
    expect(other.map((c) => c.turns[0]!.message)).not.toEqual(convs.map((c) => c.turns[0]!.message))
    // --disable-shuffle is ignored, as in Rust.
    const unshuffled = await generateShareGptConversations(
      sharegpt({ disableShuffle: true }),
      multiTurn(0),
      context(6),
    )
    expect(unshuffled).toEqual(convs)
  })

  test('caps turns at --multi-turn-max-turns, fixes the output with --sharegpt-output-len, and always oversamples', async () => {
    const convs = await generateShareGptConversations(
      sharegpt({ outputLen: 9, noOversample: true }),
      multiTurn(2),
      context(10),
    )
    expect(convs).toHaveLength(10)
    expect(convs.every((c) => c.turns.length === 2)).toBe(true)
    expect(convs.flatMap((c) => c.turns).every((t) => t.expectedOutputLen === 9)).toBe(true)
    expect(new Set(convs.map((c) => c.id)).size).toBe(10)
  })

  test('a file with no conversation of 2+ turns is an error naming the file', async () => {
    const path = join(import.meta.dirname, '../../../fixtures/datasets/sharegpt-small.json')
    await expect(generateShareGptConversations(sharegpt({ path }), multiTurn(0), context(3))).rejects.toThrow(
      `multi-turn: sharegpt ${path} has no conversation with 2 or more user turns (entries need 4 or more messages, alternating user and reply)`,
    )
  })
})

describe('parseShareGptConversations and toMessages', () => {
  test('reads {from, value} and {role, content} messages; a bad entry names its index', () => {
    expect(toMessages([{ role: 'user', content: 'a' }])).toEqual([{ from: 'user', value: 'a' }])
    expect(toMessages([{ role: 'user' }])).toBeUndefined()
    expect(toMessages('text')).toBeUndefined()
    expect(() => parseShareGptConversations('[{"conversations": 3}]', 'f.json')).toThrow(
      'sharegpt: f.json: entry 0: field "conversations" must be an array of {"from", "value"} turns',
    )
    expect(() => parseShareGptConversations('{}', 'f.json')).toThrow(
      'sharegpt: f.json: must be a JSON array of {"conversations": [...]} entries',
    )
  })
})
