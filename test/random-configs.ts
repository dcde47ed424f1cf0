/**
 * Configs of the random datasets for their generator tests: 64-token prompts and 16-token outputs
 * with no spread and no prefix, each test overriding what it is about.
 */
import type { RandomTextLengths } from '../src/datasets/random/lengths.ts'
import type { RandomDatasetConfig } from '../src/datasets/random/random.ts'

/** The text lengths of every fixture, `random` and `random-mm` alike. */
export function randomText(): RandomTextLengths {
  return { inputLen: 64, outputLen: 16, prefixLen: 0, rangeRatio: { input: 0, output: 0 } }
}

/** A `random` config: one prompt per request, sent as text. */
export function randomConfig(overrides: Partial<RandomDatasetConfig> = {}): RandomDatasetConfig {
  return { kind: 'random', ...randomText(), batchSize: 1, promptTokenIds: false, ...overrides }
}
