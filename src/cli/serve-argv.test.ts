import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { dryRunJson } from '../options/dry-run.ts'
import { resolveServeFlags } from '../options/serve-flags.ts'
import { findFlag } from './flags.ts'
import { formatServeHelpSearch } from './help.ts'
import { humanReadableInt, parseServeArgv } from './serve-argv.ts'

const dir = mkdtempSync(join(tmpdir(), 'servebench-argv-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function yamlFile(name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

/** What `serve --dry-run` prints for `argv`. */
function dryRun(argv: string[]): Record<string, unknown> {
  const { flags } = parseServeArgv(argv)
  return dryRunJson(resolveServeFlags(flags, {}, (name) => findFlag(name)?.status))
}

/** The run every spelling below asks for starts with these flags. */
const RUN = ['--backend', 'openai-chat', '--model', 'm', '--num-prompts', '7']

const LONG_FORM = [
  ...RUN,
  '--request-rate',
  'inf',
  '--header',
  'x-a=1',
  'x-b=2',
  '--extra-body',
  '{"temperature":0,"stop":["a","b","c"],"nested":{"k":1000}}',
  '--save-result',
]

describe('parseServeArgv', () => {
  it('reads --config as its long flags, and the command line wins over the file', () => {
    const config = yamlFile(
      'run.yaml',
      [
        'backend: openai-chat',
        'model: from-file',
        'num_prompts: 3',
        'request-rate: .inf',
        'header: [x-file=0]',
        'save-result: true',
        'disable-tqdm: false',
        'no-value:',
        'extra-body:',
        '  temperature: 0',
        '  stop: [a, b, c]',
        '  nested: {k: 1000}',
      ].join('\n'),
    )
    const argv = ['--model', 'm', '--config', config, '--num-prompts', '7', '--header', 'x-a=1', 'x-b=2']
    expect(dryRun(argv)).toEqual(dryRun(LONG_FORM))
    expect(
      dryRun([`--config=${config}`, '--model', 'm', '--num-prompts=7', '--header', 'x-a=1', 'x-b=2']),
    ).toEqual(dryRun(LONG_FORM))
  })

  it('merges dotted keys into the JSON flag, appends key+ lists and reads 1k as 1000', () => {
    const dotted = [
      ...RUN,
      '--header',
      'x-a=1',
      'x-b=2',
      '--save-result',
      '--extra-body.temperature',
      '0',
      '--extra_body.stop+',
      'a',
      '--extra-body.stop+=b,c',
      '--extra-body.nested.k=1k',
    ]
    expect(dryRun(dotted)).toEqual(dryRun(LONG_FORM))
    const { flags } = parseServeArgv([
      '--extra-body',
      '{"a":1,"stop":["x"]}',
      '--extra-body.stop+',
      'y',
      '--extra-body.b',
      'text',
    ])
    expect(JSON.parse(flags.get('--extra-body') as string)).toEqual({ a: 1, stop: ['x', 'y'], b: 'text' })
  })

  it('lets dotted command-line keys refine the file, and a plain command-line value replace it', () => {
    const config = yamlFile('body.yaml', 'extra-body: {temperature: 1, top_k: 5}\nextra-body.seed: 3\n')
    const refine = parseServeArgv(['--config', config, '--extra-body.temperature', '0'])
    expect(JSON.parse(refine.flags.get('--extra-body') as string)).toEqual({
      temperature: 0,
      top_k: 5,
      seed: 3,
    })
    expect(refine.duplicateKeys).toEqual([])
    const replace = parseServeArgv(['--config', config, '--extra-body', '{"max_tokens":2}'])
    expect(JSON.parse(replace.flags.get('--extra-body') as string)).toEqual({ max_tokens: 2 })
    expect(parseServeArgv(['--extra-body.t', '1', '--extra-body.t', '2']).duplicateKeys).toEqual([
      'extra-body.t',
    ])
    const proto = parseServeArgv(['--extra-body.__proto__.x', '1', '--extra-body.toString', '2'])
    expect(JSON.parse(proto.flags.get('--extra-body') as string)).toEqual(
      JSON.parse('{"__proto__":{"x":1},"toString":2}'),
    )
    expect(proto.duplicateKeys).toEqual([])
  })

  it('names every bad --config and dotted flag at once', () => {
    const list = yamlFile('list.yaml', '- num-prompts\n')
    const unknown = yamlFile('unknown.yaml', 'num-promts: 3\n')
    expect(() => parseServeArgv(['--config', join(dir, 'run.json')])).toThrow(
      `--config must be a .yaml or .yml file (got ${join(dir, 'run.json')})`,
    )
    expect(() => parseServeArgv(['--config', list, '--config', unknown])).toThrow(
      `--config may be given only once`,
    )
    let message = ''
    try {
      parseServeArgv([
        '--config',
        unknown,
        '--save-result.x',
        '1',
        '--bogus.k',
        '2',
        '--extra-body',
        '[1]',
        '--extra-body.k',
        '1',
      ])
    } catch (error) {
      message = (error as Error).message.replaceAll(dir, '<dir>')
    }
    expect(message).toMatchInlineSnapshot(`
      "Invalid configuration (4 issues):
        - --num-promts is not a servebench serve flag; did you mean --num-prompts? (see --help) (in --config <dir>/unknown.yaml)
        - --save-result takes no JSON object; a dotted flag such as --extra-body.temperature sets one key of a JSON-object flag
        - --bogus is not a servebench serve flag; a dotted flag such as --extra-body.temperature sets one key of a JSON-object flag
        - --extra-body must be a JSON object to take dotted keys (got [1])"
    `)
    expect(() => parseServeArgv(['--config', list])).toThrow(
      `--config ${list} must hold a mapping of long flag names to values, such as "num-prompts: 100"`,
    )
    expect(() => parseServeArgv(['--config', join(dir, 'missing.yaml')])).toThrow(
      /^--config cannot read .*missing\.yaml: ENOENT/,
    )
  })

  it('builds any JSON object from one dotted flag per leaf', () => {
    const key = fc
      .string({ minLength: 1, maxLength: 6 })
      .filter((k) => !k.includes('.') && !k.endsWith('+') && !k.includes('='))
    const leaf = fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.string(),
      fc.array(fc.integer(), { maxLength: 3 }),
    )
    const { tree } = fc.letrec((tie) => ({
      tree: fc.dictionary(key, fc.oneof({ depthSize: 'small' }, leaf, tie('tree')), {
        minKeys: 1,
        maxKeys: 4,
      }),
    }))
    fc.assert(
      fc.property(tree, (object) => {
        const argv: string[] = []
        const walk = (node: Record<string, unknown>, path: string): void => {
          for (const [k, v] of Object.entries(node)) {
            if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0) {
              walk(v as Record<string, unknown>, `${path}.${k}`)
            } else argv.push(`${path}.${k}`, JSON.stringify(v))
          }
        }
        walk(object as Record<string, unknown>, '--extra-body')
        const { flags } = parseServeArgv(argv)
        expect(JSON.parse(flags.get('--extra-body') as string)).toEqual(object)
      }),
    )
  })

  it('reads human-readable integers as vLLM does', () => {
    expect([
      humanReadableInt('1k'),
      humanReadableInt('25.6k'),
      humanReadableInt('1K'),
      humanReadableInt('2M'),
    ]).toEqual([1000, 25_600, 1024, 2 * 1024 ** 2])
    expect([humanReadableInt('1.5K'), humanReadableInt('abc'), humanReadableInt('12')]).toEqual([
      undefined,
      undefined,
      12,
    ])
  })
})

describe('--help=<keyword>', () => {
  it('keeps the keyword and shows a group, the matching flags, or what to try', () => {
    const { flags, helpKeyword } = parseServeArgv(['--help=Endpoint'])
    expect([flags.get('--help'), helpKeyword]).toEqual([true, 'Endpoint'])
    const group = formatServeHelpSearch('model_and_tokenizer')
    expect(group.split('\n')[0]).toBe('Model and tokenizer:')
    expect(group).toContain('--tokenizer ')
    expect(group).toContain('--json-arg.key1 value1 --json-arg.key2.key3 value2')
    const matches = formatServeHelpSearch('goodput').split('\n')
    expect(matches[0]).toBe(`Arguments matching 'goodput':`)
    expect(
      matches.filter((line) => line.startsWith('  --')).map((line) => line.trim().split(' ')[0]),
    ).toEqual(['--goodput'])
    expect(formatServeHelpSearch('zzz')).toBe(
      "No group or arguments matching 'zzz'.\nUse '--help' to see available groups or '--help=all' to see all available parameters.\n",
    )
    expect(formatServeHelpSearch('all')).toContain('Request content:')
  })
})
