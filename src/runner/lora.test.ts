import { describe, expect, test } from 'vitest'
import { assignLoraModules } from './lora.ts'

// Vectors of the Rust port's LoRA tests (cli.rs).
describe('assignLoraModules', () => {
  test('round-robin over [a, b, c] for 7 requests is a b c a b c a', () => {
    expect(assignLoraModules({ modules: ['a', 'b', 'c'], assignment: 'round-robin' }, 7, 0)).toEqual([
      'a',
      'b',
      'c',
      'a',
      'b',
      'c',
      'a',
    ])
  })

  test('random: the same seed gives the same sequence, another seed a different one', () => {
    const lora = { modules: ['a', 'b', 'c', 'd'], assignment: 'random' as const }
    expect(assignLoraModules(lora, 50, 7)).toEqual(assignLoraModules(lora, 50, 7))
    expect(assignLoraModules(lora, 50, 8)).not.toEqual(assignLoraModules(lora, 50, 7))
  })

  test('random: 1000 draws over 4 adapters hit all 4, each near a quarter', () => {
    const draws = assignLoraModules({ modules: ['a', 'b', 'c', 'd'], assignment: 'random' }, 1000, 0)
    const counts = new Map<string, number>()
    for (const name of draws) counts.set(name, (counts.get(name) ?? 0) + 1)
    expect([...counts.keys()].sort()).toEqual(['a', 'b', 'c', 'd'])
    // Binomial(1000, 0.25): sd ≈ 13.7; 5 sd either side.
    for (const n of counts.values()) expect(Math.abs(n - 250)).toBeLessThan(70)
  })

  test('one adapter: every request takes it', () => {
    expect(new Set(assignLoraModules({ modules: ['only'], assignment: 'random' }, 20, 3))).toEqual(
      new Set(['only']),
    )
  })
})
