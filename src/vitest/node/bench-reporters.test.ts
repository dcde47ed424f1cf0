import { describe, expect, it } from 'vitest'
import { BenchmarkReporter, GithubActionsReporter, JsonReporter, JUnitReporter } from 'vitest/node'
import { benchModeReporters } from './bench-reporters.ts'
import { assertUpdateValue } from './plugin.ts'

describe('benchModeReporters', () => {
  it("constructs Vitest's test reporters that bench mode refuses by name, with their output files", () => {
    const own = { onInit() {} }
    const [main, junit, json, custom, instance] = benchModeReporters(
      ['default', 'junit', 'json', './my-reporter.ts', own],
      { junit: 'out/junit.xml' },
      {},
    ) as Array<{ options?: { outputFile?: string } }>
    expect(main).toBeInstanceOf(BenchmarkReporter)
    expect(junit).toBeInstanceOf(JUnitReporter)
    expect(junit?.options?.outputFile).toBe('out/junit.xml')
    expect(json).toBeInstanceOf(JsonReporter)
    expect(custom).toBe('./my-reporter.ts')
    expect(instance).toBe(own)
  })

  it('adds github-actions under GITHUB_ACTIONS only when no reporter was named', () => {
    const gh = { GITHUB_ACTIONS: 'true' }
    expect(benchModeReporters([], undefined, gh).at(-1)).toBeInstanceOf(GithubActionsReporter)
    expect(benchModeReporters(['default'], undefined, gh)).toHaveLength(2)
    expect(benchModeReporters(['default', 'junit'], undefined, gh)).toHaveLength(2)
    expect(benchModeReporters(['default'], undefined, {})).toHaveLength(1)
  })
})

describe('assertUpdateValue', () => {
  it('takes all, new, none or a flag, and refuses a filter read as the value of -u', () => {
    for (const ok of [undefined, true, false, 'all', 'new', 'none'])
      expect(() => assertUpdateValue(ok)).not.toThrow()
    expect(() => assertUpdateValue('gate')).toThrow(
      new TypeError(
        '-u took "gate" as its value (--update accepts all, new or none), so "gate" is no file filter and every baseline would be rewritten. To update one file\'s baselines, put the filter first: vitest bench --run gate -u',
      ),
    )
  })
})
