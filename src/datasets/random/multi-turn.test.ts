import { describe, expect, it } from 'vitest'
import { randomConfig } from '../../../test/random-configs.ts'
import type { MultiTurnConfig } from '../../config/bench-config.ts'
import { loadTokenizer } from '../../tokenizer/index.ts'
import { generateMultiTurnConversations, turnBounds } from './multi-turn.ts'

const dataset = randomConfig({ inputLen: 40, outputLen: 8 })
const multiTurn = (over: Partial<MultiTurnConfig> = {}): MultiTurnConfig => ({
  numTurns: 3,
  minTurns: 0,
  maxTurns: 0,
  perTurnInputLen: 0,
  delayMs: 0,
  prefixGlobalRatio: 0,
  prefixConversationRatio: 0,
  continueOnFailure: false,
  ...over,
})
const context = async () => ({
  tokenizer: await loadTokenizer({ id: 'cl100k_base' }),
  numConversations: 4,
  seed: 1,
  requestIdPrefix: 'p-',
})

function commonPrefix(a: string, b: string): number {
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return i
}

describe('generateMultiTurnConversations', () => {
  it('builds conversations of the configured turns with exact message lengths', async () => {
    const convs = await generateMultiTurnConversations(
      dataset,
      multiTurn({ perTurnInputLen: 20 }),
      await context(),
    )
    expect(convs.map((c) => c.id)).toEqual(['p-conv-0', 'p-conv-1', 'p-conv-2', 'p-conv-3'])
    for (const conv of convs) {
      expect(conv.turns.map((t) => t.messageLen)).toEqual([40, 20, 20])
      expect(conv.turns.every((t) => t.expectedOutputLen === 8)).toBe(true)
    }
  })

  it('draws turn counts between min and max, the same for the same seed', async () => {
    const config = multiTurn({ minTurns: 1, maxTurns: 4 })
    expect(turnBounds(config)).toEqual({ min: 1, max: 4 })
    const a = await generateMultiTurnConversations(dataset, config, await context())
    const b = await generateMultiTurnConversations(dataset, config, await context())
    expect(a).toEqual(b)
    for (const conv of a) expect(conv.turns.length).toBeGreaterThanOrEqual(1)
    for (const conv of a) expect(conv.turns.length).toBeLessThanOrEqual(4)
  })

  it('shares a global prefix across conversations and a conversation prefix across its turns', async () => {
    const convs = await generateMultiTurnConversations(
      dataset,
      multiTurn({ prefixGlobalRatio: 0.25, prefixConversationRatio: 0.25 }),
      await context(),
    )
    const firsts = convs.map((c) => c.turns[0]!.message)
    // 10 global tokens shared by all; 10 more shared only inside a conversation.
    const global = Math.min(...firsts.slice(1).map((f) => commonPrefix(firsts[0]!, f)))
    expect(global).toBeGreaterThan(10)
    for (const conv of convs) {
      const within = commonPrefix(conv.turns[0]!.message, conv.turns[2]!.message)
      expect(within).toBeGreaterThan(global + 10)
    }
  })
})
