import { describe, expect, it } from 'vitest'
import { ConfigError } from '../errors.ts'
import { DEFAULT_VERDICT_OPTIONS, mergeVerdictOptions, resolveVerdictOptions } from './verdict-options.ts'

describe('resolveVerdictOptions', () => {
  it('gives the documented defaults, and one round for budget: false', () => {
    expect(resolveVerdictOptions(undefined, "serveBench('b').verdicts")).toEqual(DEFAULT_VERDICT_OPTIONS)
    expect(resolveVerdictOptions({ budget: false }, "serveBench('b').verdicts").budget).toEqual({
      rounds: 1,
      requests: Number.POSITIVE_INFINITY,
      seconds: Number.POSITIVE_INFINITY,
    })
    expect(
      resolveVerdictOptions({ budget: { rounds: 2 }, inconclusive: 'warn' }, "serveBench('b').verdicts"),
    ).toMatchObject({
      budget: { rounds: 2, requests: 2000, seconds: 120 },
      inconclusive: 'warn',
    })
  })

  it('names every bad field from the benchmark, with what is valid and a near miss', () => {
    const error = (() => {
      try {
        resolveVerdictOptions(
          {
            confidence: 1,
            budget: { rounds: 0, second: 3 },
            inconclusive: 'maybe',
            retryInvalids: 2,
            baselineRuns: 0,
          },
          "serveBench('gate').verdicts",
        )
      } catch (e) {
        return e as ConfigError
      }
      throw new Error('no error')
    })()
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.issues.map((i) => `${i.path} ${i.message}`)).toEqual([
      "serveBench('gate').verdicts.retryInvalids is not an option of verdicts; did you mean 'retryInvalid'? (valid: confidence, budget, inconclusive, abortOnFail, retryInvalid, baselineRuns, clientCheck)",
      "serveBench('gate').verdicts.confidence must be in [0.5, 1), e.g. 0.95 (got 1)",
      "serveBench('gate').verdicts.budget.second is not an option of verdicts.budget; did you mean 'seconds'? (valid: rounds, requests, seconds)",
      "serveBench('gate').verdicts.budget.rounds must be an integer ≥ 1 (got 0)",
      "serveBench('gate').verdicts.inconclusive must be 'point', 'fail' or 'warn' (got 'maybe')",
      "serveBench('gate').verdicts.baselineRuns must be an integer from 1 to 20 (got 0)",
    ])
  })
})

describe('mergeVerdictOptions', () => {
  it("puts a benchmark's options over the plugin's defaults, the budget field by field", () => {
    expect(
      mergeVerdictOptions(
        { clientCheck: 'warn', budget: { rounds: 2, seconds: 10 } },
        { budget: { seconds: 30 } },
      ),
    ).toEqual({ clientCheck: 'warn', budget: { rounds: 2, seconds: 30 } })
    expect(mergeVerdictOptions({ budget: { rounds: 2 } }, { budget: false })).toEqual({ budget: false })
    expect(mergeVerdictOptions(undefined, { inconclusive: 'fail' })).toEqual({ inconclusive: 'fail' })
  })
})
