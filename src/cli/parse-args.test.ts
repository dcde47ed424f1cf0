import { describe, expect, it } from 'vitest'
import { parseArgs } from './parse-args.ts'

describe('parseArgs', () => {
  it('reads --flag value, --flag=value, underscores and booleans', () => {
    const flags = parseArgs(['--num-prompts', '10', '--request_rate=5', '--save-result', '--model', 'm'])
    expect(Object.fromEntries(flags)).toEqual({
      '--num-prompts': '10',
      '--request-rate': '5',
      '--save-result': true,
      '--model': 'm',
    })
  })

  it('collects the values of a multi-value flag until the next flag', () => {
    const flags = parseArgs(['--header', 'a=1', 'b=2', '--goodput', 'ttft:100', '--seed', '1'])
    expect(flags.get('--header')).toEqual(['a=1', 'b=2'])
    expect(flags.get('--goodput')).toEqual(['ttft:100'])
  })

  it('keeps negative numbers as values', () => {
    expect(parseArgs(['--top-k', '-1']).get('--top-k')).toBe('-1')
  })

  it('names an unknown flag and suggests the closest one', () => {
    expect(() => parseArgs(['--num-promts', '3'])).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: --num-promts is not a servebench serve flag; did you mean --num-prompts? (see --help)]`,
    )
  })

  it('reports every problem at once', () => {
    expect(() => parseArgs(['--bogus', '--seed', '--save-result=yes'])).toThrowErrorMatchingInlineSnapshot(`
      [ConfigError: Invalid configuration (3 issues):
        - --bogus is not a servebench serve flag (see --help)
        - --seed needs a value (an integer)
        - --save-result takes no value (got "yes")]
    `)
  })
})
