import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { BIN, runCli, test } from './helpers.ts'
import { freePort } from './server-helpers.ts'

// `servebench sweep serve` with `servebench sim` as the served command (vllm bench sweep serve).
describe('servebench sweep serve', () => {
  test('runs a 2×2 grid, writes summary.csv, and a resumed run redoes only the missing point', {
    timeout: 180_000,
  }, async ({ tmpDir }) => {
    const port = await freePort()
    const node = process.execPath
    await writeFile(join(tmpDir, 'serve.json'), JSON.stringify([{ max_num_seqs: 4 }, { max_num_seqs: 8 }]))
    await writeFile(
      join(tmpDir, 'bench.json'),
      JSON.stringify({ c1: { max_concurrency: 1 }, c2: { max_concurrency: 2 } }),
    )
    const sweep = (extra: string[]): Promise<Awaited<ReturnType<typeof runCli>>> =>
      runCli(
        [
          'sweep',
          'serve',
          '--serve-cmd',
          `${node} ${BIN} sim --host 127.0.0.1 --port ${port} --ttft-ms 2 --itl-ms 1 --max-num-seqs 2`,
          '--bench-cmd',
          `${node} ${BIN} serve --base-url http://127.0.0.1:${port} --model m --tokenizer cl100k_base --random-input-len 8 --random-output-len 2 --num-prompts 3 --disable-tqdm --client-check off`,
          '--serve-params',
          join(tmpDir, 'serve.json'),
          '--bench-params',
          join(tmpDir, 'bench.json'),
          '--num-runs',
          '1',
          '-o',
          tmpDir,
          '-e',
          'exp',
          ...extra,
        ],
        { timeoutMs: 150_000 },
      )
    const first = await sweep([])
    expect(first.stderr).toBe('')
    expect(first.code).toBe(0)
    const exp = join(tmpDir, 'exp')
    const folders = (await readdir(exp)).sort()
    expect(folders).toEqual([
      'SERVE--max_num_seqs=4-BENCH--c1',
      'SERVE--max_num_seqs=4-BENCH--c2',
      'SERVE--max_num_seqs=8-BENCH--c1',
      'SERVE--max_num_seqs=8-BENCH--c2',
      'summary.csv',
    ])
    const run = JSON.parse(await readFile(join(exp, 'SERVE--max_num_seqs=8-BENCH--c2', 'run=0.json'), 'utf8'))
    expect(run).toMatchObject({
      completed: 3,
      max_concurrency: 2,
      max_num_seqs: 8,
      run_number: 0,
      _benchmark_name: 'c2',
    })
    expect(first.stdout.match(/^\[BEGIN SERVER\]$/gm)).toHaveLength(2)
    expect(first.stdout).toContain("Server command: ['")
    expect(first.stdout).toContain("'--max-num-seqs', '8'")

    // Resume: only the point whose files are gone starts a server and runs again.
    const kept = await stat(join(exp, 'SERVE--max_num_seqs=4-BENCH--c1', 'run=0.json'))
    await rm(join(exp, 'SERVE--max_num_seqs=8-BENCH--c1'), { recursive: true })
    const resumed = await sweep(['--resume'])
    expect(resumed.stderr).toBe('')
    expect(resumed.code).toBe(0)
    expect(resumed.stdout.match(/^\[BEGIN SERVER\]$/gm)).toHaveLength(1)
    // The three points with results are read back; one benchmark runs (one cache reset after it).
    expect(resumed.stdout.match(/^\[SKIPPED BENCHMARK\]$/gm)).toHaveLength(3)
    expect(resumed.stdout.match(/^Resetting caches at /gm)).toHaveLength(1)
    expect((await stat(join(exp, 'SERVE--max_num_seqs=4-BENCH--c1', 'run=0.json'))).mtimeMs).toBe(
      kept.mtimeMs,
    )
    const csv = (await readFile(join(exp, 'summary.csv'), 'utf8')).trim().split('\n')
    expect(csv).toHaveLength(5)
    const header = csv[0]!.split(',')
    expect(header[0]).toBe('')
    expect(header).toEqual(
      expect.arrayContaining(['completed', 'run_number', 'max_num_seqs', 'max_concurrency']),
    )
  })
})
