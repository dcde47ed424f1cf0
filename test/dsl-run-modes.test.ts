import { describe, expect } from 'vitest'
import { ConfigError } from '../src/errors.ts'
import { benchConfigFromDsl } from '../src/options/from-dsl.ts'
import { resultForFile } from '../src/report/result/result-json.ts'
import { validateModeFile } from '../src/report/result/schema/modes.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'
import { datasets, endpoint, load } from '../src/vitest/runtime/builders.ts'
import { test } from './helpers.ts'

describe('the DSL reaches the run modes', () => {
  test('datasets.multiTurn() runs conversations and the result carries the multi-turn keys', async ({
    sim,
  }) => {
    const config = benchConfigFromDsl(
      {
        endpoint: endpoint({ backend: 'openai-chat', tokenizer: 'cl100k_base' }),
        dataset: datasets.multiTurn({ inputLen: 24, outputLen: 8, numPrompts: 3, numTurns: 2 }),
        load: load.poisson({ rate: 50 }),
      },
      { name: 'multi-turn', defaultBaseUrl: sim.url },
    )
    expect(config.multiTurn).toMatchObject({ numTurns: 2, continueOnFailure: false })
    const { result } = await runBenchmark(config)
    expect(result).toMatchObject({
      mode: 'multi_turn',
      completed: 6,
      conversations_completed: 3,
      request_rate: 50,
    })
    expect((result.per_turn_metrics as unknown[]).length).toBe(2)
    // Per-request arrays stay in memory for assertions; the file drops them.
    expect(result.ttfts).toHaveLength(6)
    expect(validateModeFile(resultForFile(result, false))).toEqual({ valid: true })
  })

  test('datasets.multiTurn() names a backend that cannot carry history', () => {
    expect.assertions(2)
    try {
      benchConfigFromDsl(
        { dataset: datasets.multiTurn({ minTurns: 5, numTurns: 2 }) },
        { name: 'bad', defaultBaseUrl: 'http://127.0.0.1:1' },
      )
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as ConfigError).issues.map((i) => `${i.path} ${i.message}`)).toEqual([
        "serveBench('bad').dataset needs endpoint({ backend: 'openai-chat' }) (got openai): turns carry the chat history",
        "serveBench('bad').dataset.minTurns must be <= the maximum number of turns (got min 5 > max 2)",
      ])
    }
  })
})
