import { describe, expect, it } from 'vitest'
import { type CommandArgs, parseArgs, parseCommandArgs } from './parse-args.ts'

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

describe('parseCommandArgs', () => {
  const compare: CommandArgs = {
    command: 'servebench compare',
    flags: [
      { name: '--markdown', type: 'boolean', help: '' },
      { name: '--fail-on', type: 'string', repeatable: true, help: '' },
      { name: '--output', aliases: ['-o'], type: 'string', help: '' },
      { name: '--strict', type: 'boolean', explicitBoolean: true, help: '' },
    ],
    positionals: { what: 'result files A B', min: 2, max: 2 },
  }

  it('keeps positional arguments apart from flags, values of repeated flags in order', () => {
    expect(
      parseCommandArgs(
        ['a.json', '--fail-on', 'x:+1', '-o', 'r.html', 'b.json', '--fail-on=y:-2', '--markdown'],
        compare,
      ),
    ).toEqual({
      flags: new Map<string, unknown>([
        ['--fail-on', ['x:+1', 'y:-2']],
        ['--output', 'r.html'],
        ['--markdown', true],
      ]),
      positionals: ['a.json', 'b.json'],
    })
  })

  it('reads =true and =false only on a boolean that takes them', () => {
    expect(parseCommandArgs(['a', 'b', '--strict=false'], compare).flags.get('--strict')).toBe('false')
    expect(() =>
      parseCommandArgs(['a', 'b', '--markdown=false', '--strict=maybe'], compare),
    ).toThrowErrorMatchingInlineSnapshot(`
      [ConfigError: Invalid configuration (2 issues):
        - --markdown takes no value (got "false")
        - --strict must be true or false (got "maybe")]
    `)
  })

  it('counts the positional arguments, and lists a short table with the closest flag', () => {
    expect(() => parseCommandArgs(['a.json'], compare)).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: compare needs two result files A B (got 1); see servebench compare --help]`,
    )
    expect(() => parseCommandArgs(['a', 'b', 'c'], compare)).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: compare takes two result files A B (got 3); see servebench compare --help]`,
    )
    // The unknown flag's value lands among the positionals, so too many is not reported on top.
    expect(() => parseCommandArgs(['a', 'b', '--markdwn', 'c'], compare)).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: --markdwn is not a servebench compare flag; did you mean --markdown? valid: --markdown, --fail-on, --output, -o, --strict, --help]`,
    )
  })

  it('names an unknown flag of a command without positionals once, not its value as a stray token', () => {
    const sim: CommandArgs = {
      command: 'servebench sim',
      flags: [{ name: '--port', type: 'int', help: '' }],
    }
    expect(() => parseCommandArgs(['--prot', '8400'], sim)).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: --prot is not a servebench sim flag; did you mean --port? valid: --port, --help]`,
    )
  })
})
