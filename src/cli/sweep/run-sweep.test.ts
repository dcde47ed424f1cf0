import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseArgs } from '../parse-args.ts'
import { parseServeArgv } from '../serve-argv.ts'
import { runSweepServe } from './run-sweep.ts'
import { resolveSweepServeArgs, SWEEP_SERVE_FLAGS } from './sweep-flags.ts'

const dir = mkdtempSync(join(tmpdir(), 'servebench-sweep-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
writeFileSync(join(dir, 'serve.json'), JSON.stringify([{ max_num_seqs: 2 }, { max_num_seqs: 4 }]))
writeFileSync(join(dir, 'bench.json'), JSON.stringify([{ max_concurrency: 2 }, { max_concurrency: 3 }]))

function resolve(argv: string[]): ReturnType<typeof resolveSweepServeArgs> {
  return resolveSweepServeArgs(parseArgs(argv, SWEEP_SERVE_FLAGS), new Date(2026, 0, 2, 3, 4, 5))
}

const BASE = [
  '--serve-cmd',
  'servebench sim --port 9',
  '--bench-cmd',
  "servebench serve --label 'a b'",
  '-o',
  dir,
]

describe('servebench sweep serve (without running anything)', () => {
  it('prints the linked points of a dry run, runs nothing and writes nothing', async () => {
    const args = resolve([
      ...BASE,
      '--serve-params',
      join(dir, 'serve.json'),
      '--bench-params',
      join(dir, 'bench.json'),
      '--link-vars',
      'max_num_seqs=max_concurrency',
      '--num-runs',
      '1',
      '--dry-run',
    ])
    expect(args.experimentDir).toBe(join(dir, '20260102_030405'))
    const lines: string[] = []
    expect(await runSweepServe(args, { log: (line) => lines.push(line) })).toBeUndefined()
    // Only max_num_seqs=2 has a linked bench point (max_concurrency=2): no server for 4.
    expect(lines.filter((l) => l.startsWith('Server command:'))).toEqual([
      "Server command: ['servebench', 'sim', '--port', '9', '--max-num-seqs', '2']",
    ])
    expect(lines.filter((l) => l.startsWith('Benchmark command:'))).toEqual([
      `Benchmark command: ['servebench', 'serve', '--label', 'a b', '--max-concurrency', '2', '--percentile-metrics', 'ttft,tpot,itl,e2el', '--save-result', '--result-dir', '${join(args.experimentDir, 'SERVE--max_num_seqs=2-BENCH--max_concurrency=2')}', '--result-filename', 'run=0.json']`,
    ])
    expect(existsSync(args.experimentDir)).toBe(false)
  })

  it('names every bad flag, an existing experiment without --resume, and a missing one with it', () => {
    mkdirSync(join(dir, 'old'))
    let message = ''
    try {
      resolve([
        '--bench-cmd',
        `a "b`,
        '--num-runs',
        '0',
        '--link-vars',
        'x',
        '-o',
        dir,
        '-e',
        'old',
        '--serve-params',
        join(dir, 'none.json'),
      ])
    } catch (error) {
      message = (error as Error).message.replaceAll(dir, '<dir>')
    }
    expect(message).toMatchInlineSnapshot(`
      "Invalid configuration (6 issues):
        - --link-vars must be SERVE_KEY=BENCH_KEY pairs separated by commas (got "x")
        - --serve-cmd is required (the command, as one quoted string)
        - --bench-cmd has no closing quotation (")
        - --serve-params cannot read <dir>/none.json: ENOENT: no such file or directory, open '<dir>/none.json'
        - --num-runs must be an integer of at least 1 (got 0)
        - --experiment-name names an existing folder (<dir>/old); pass --resume to continue it, or another name"
    `)
    expect(() => resolve([...BASE, '-e', 'new', '--resume'])).toThrow(
      `--resume needs an existing experiment folder (${join(dir, 'new')} does not exist)`,
    )
  })

  it('reads its flags from --config as vLLM does, the command line winning', () => {
    const config = join(dir, 'sweep.yaml')
    writeFileSync(
      config,
      `serve_cmd: servebench sim --port 9\nbench-cmd: servebench serve\nnum-runs: 2\noutput_dir: ${dir}\nresume: false\n`,
    )
    const { flags } = parseServeArgv(['--config', config, '--num-runs', '1', '-e', 'cfg'], SWEEP_SERVE_FLAGS)
    const args = resolveSweepServeArgs(flags)
    expect(args).toMatchObject({
      serveCommand: ['servebench', 'sim', '--port', '9'],
      benchCommand: ['servebench', 'serve'],
      numRuns: 1,
      experimentDir: join(dir, 'cfg'),
      resume: false,
    })
  })
})
