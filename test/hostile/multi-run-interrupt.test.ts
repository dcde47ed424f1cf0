import { describe, expect } from 'vitest'
import { multiRunJson } from '../../src/report/result/multi-run.ts'
import { validateModeFile } from '../../src/report/result/schema/modes.ts'
import { runMultiRun } from '../../src/runner/multi-run.ts'
import { configFrom, smallRunFlags } from '../faults/fault-helpers.ts'
import { test } from '../helpers.ts'

describe('--num-runs with an interrupted run', () => {
  test('keeps the interrupted run out of the statistics and marks it', async ({ sim }) => {
    const config = configFrom(smallRunFlags(sim.url, ['--num-runs', '3', '--request-rate', '50']))
    const controller = new AbortController()
    let runsEnded = 0
    const printed: string[] = []
    const outcome = await runMultiRun(
      { config, numRuns: 3 },
      {
        signal: controller.signal,
        print: (text) => printed.push(text),
        onRunEnd: () => {
          runsEnded++
        },
        onRequestEnd: (done) => {
          if (runsEnded === 1 && done === 3) controller.abort()
        },
      },
    )
    expect(outcome.interrupted).toBe(true)
    expect(outcome.results).toHaveLength(2)
    expect(outcome.results[1]!.interrupted).toBe(true)
    expect(outcome.summary.numRuns).toBe(1)
    expect(printed.join('')).toContain(
      'servebench: run 2 was interrupted; the statistics cover the 1 complete runs\n',
    )
    const json = multiRunJson(outcome.results, outcome.summary)
    expect(validateModeFile(json)).toEqual({ valid: true })
  })
})
