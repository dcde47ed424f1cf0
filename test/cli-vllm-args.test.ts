import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { runCli, test } from './helpers.ts'

// vLLM's argument conventions through the built CLI: `--config`, dotted JSON flags and
// `--help=<keyword>` must print the same dry run as the long form.
describe('servebench serve --config and dotted flags', () => {
  test('print the same dry run as the long form, and --help=<keyword> shows one group', async ({
    tmpDir,
  }) => {
    const config = join(tmpDir, 'bench.yaml')
    await writeFile(
      config,
      'backend: openai-chat\nmodel: from-file\nnum-prompts: 5\nsave_result: true\nextra-body: {top_k: 5}\n',
    )
    const [short, long, help] = await Promise.all([
      runCli([
        'serve',
        '--dry-run',
        '--config',
        config,
        '--model',
        'm',
        '--extra-body.temperature',
        '0',
        '--extra-body.stop+',
        'a,b',
      ]),
      runCli([
        'serve',
        '--dry-run',
        '--backend',
        'openai-chat',
        '--model',
        'm',
        '--num-prompts',
        '5',
        '--save-result',
        '--extra-body',
        '{"top_k":5,"temperature":0,"stop":["a","b"]}',
      ]),
      runCli(['serve', '--help=traffic']),
    ])
    expect([short.code, short.stderr]).toEqual([0, ''])
    expect(long.code).toBe(0)
    expect(JSON.parse(short.stdout)).toEqual(JSON.parse(long.stdout))
    expect(JSON.parse(short.stdout)).toMatchObject({ request: { extraBody: { temperature: 0, top_k: 5 } } })
    expect(help.code).toBe(0)
    expect(help.stdout.split('\n')[0]).toBe('Traffic:')
    expect(help.stdout).toContain('--request-rate')
    expect(help.stdout).not.toContain('--tokenizer ')
  })
})
