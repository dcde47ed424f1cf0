import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { BIN, runCli, test } from './helpers.ts'
import { decodePng } from './png-decode.ts'
import { freePort } from './server-helpers.ts'

const node = process.execPath
const simCommand = (port: number): string =>
  `${node} ${BIN} sim --host 127.0.0.1 --port ${port} --ttft-ms 2 --itl-ms 1 --max-num-seqs 2`

// The rest of `vllm bench sweep` with `servebench sim` as the served command: serve_workload, then
// plot and plot_pareto over what it wrote (vllm/benchmarks/sweep/serve_workload.py, plot.py,
// plot_pareto.py).
describe('servebench sweep serve_workload, plot and plot_pareto', () => {
  test('explores the loads between serial and batch, then draws the curves and the Pareto frontier', {
    timeout: 180_000,
  }, async ({ tmpDir }) => {
    const port = await freePort()
    const run = await runCli(
      [
        'sweep',
        'serve_workload',
        '--serve-cmd',
        simCommand(port),
        '--bench-cmd',
        `${node} ${BIN} serve --base-url http://127.0.0.1:${port} --model m --tokenizer cl100k_base --random-input-len 8 --random-output-len 4 --num-prompts 6 --disable-tqdm --client-check off`,
        '--workload-var',
        'max_concurrency',
        '--workload-iters',
        '4',
        '--num-runs',
        '1',
        '-o',
        tmpDir,
        '-e',
        'wl',
      ],
      { timeoutMs: 150_000 },
    )
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const exp = join(tmpDir, 'wl')
    const serial = Number(run.stdout.match(/^Serial inference: max_concurrency=(\d+)$/m)?.[1])
    const batch = Number(run.stdout.match(/^Batch inference: max_concurrency=(\d+)$/m)?.[1])
    const explored = [...run.stdout.matchAll(/^Exploring: max_concurrency=(\d+)$/gm)].map((m) => Number(m[1]))
    expect(serial).toBeGreaterThanOrEqual(1)
    expect(batch).toBeGreaterThanOrEqual(1)
    expect(run.stdout).toContain('Dataset size: 6')
    // Upstream's folders: the serial and batch loads carry their max_concurrency in the bench part.
    const folders = (await readdir(exp)).sort()
    expect(folders).toEqual(
      [
        'BENCH--max_concurrency=1-WL--max_concurrency=1',
        'BENCH--max_concurrency=6-WL--max_concurrency=6',
        ...explored.map((v) => `WL--max_concurrency=${v}`),
        'summary.csv',
      ].sort(),
    )
    for (const folder of folders.filter((f) => f !== 'summary.csv')) {
      expect((await readdir(join(exp, folder))).sort()).toEqual(['run=0.json', 'summary.json'])
    }
    const batchRun = JSON.parse(
      await readFile(join(exp, 'BENCH--max_concurrency=6-WL--max_concurrency=6', 'run=0.json'), 'utf8'),
    )
    expect(batchRun).toMatchObject({ completed: 6, max_concurrency: 6, run_number: 0 })
    const csv = (await readFile(join(exp, 'summary.csv'), 'utf8')).trim().split('\n')
    expect(csv).toHaveLength(1 + 2 + explored.length)

    // sweep plot: one figure per --fig-by value, in OUTPUT_DIR (--fig-dir is relative to it).
    const plot = await runCli([
      'sweep',
      'plot',
      exp,
      '--var-x',
      'max_concurrency',
      '--var-y',
      'p99_ttft_ms',
      '--fig-by',
      'run_number',
      '--fig-dir',
      'figs',
      '--fig-name',
      'TTFT',
    ])
    expect(plot.stderr).toBe('')
    expect(plot.code).toBe(0)
    expect(plot.stdout).toContain('Grid: 1 rows x 1 cols')
    expect(await readdir(join(exp, 'figs'))).toEqual(['TTFT-run_number=0.png'])
    const figure = decodePng(await readFile(join(exp, 'figs', 'TTFT-run_number=0.png')))
    expect(figure.width).toBeGreaterThan(600)

    // A variable no run has is named with the ones there are (exit 2).
    const bad = await runCli(['sweep', 'plot', exp, '--var-y', 'p99_nothing_ms'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(
      /--var-y Cannot find p99_nothing_ms in parameter sweep results\. Available variables: .*p99_ttft_ms/,
    )

    // sweep plot_pareto: every run placed, the frontier drawn, in OUTPUT_DIR/pareto/PARETO.png.
    const pareto = await runCli(['sweep', 'plot_pareto', exp])
    expect(pareto.stderr).toBe('')
    expect(pareto.code).toBe(0)
    expect(pareto.stdout).toMatch(
      new RegExp(`^Plotted ${2 + explored.length} points; Pareto frontier size: \\d+\\.$`, 'm'),
    )
    expect(await readdir(join(exp, 'pareto'))).toEqual(['PARETO.png'])
    expect(decodePng(await readFile(join(exp, 'pareto', 'PARETO.png'))).text.Title).toBe(
      'servebench sweep plot_pareto',
    )

    // A folder without any summary.json, and one that is not there, are named (exit 2).
    const empty = await runCli(['sweep', 'plot_pareto', join(exp, 'pareto')])
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain(
      `OUTPUT_DIR ${join(exp, 'pareto')} holds no summary.json: did not find any parameter sweep results under it`,
    )
    const missing = await runCli(['sweep', 'plot', join(tmpDir, 'nothing')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain(`OUTPUT_DIR ${join(tmpDir, 'nothing')} does not exist`)
  })

  test('startup times the server command from its start to ready over a grid, cold and warm', {
    timeout: 180_000,
  }, async ({ tmpDir }) => {
    const port = await freePort()
    await writeFile(join(tmpDir, 'serve.json'), JSON.stringify([{ max_num_seqs: 2 }, { max_num_seqs: 8 }]))
    await writeFile(
      join(tmpDir, 'startup.json'),
      JSON.stringify({ quick: { num_iters_cold: 2, num_iters_warm: 1 } }),
    )
    const run = await runCli(
      [
        'sweep',
        'startup',
        '--startup-cmd',
        simCommand(port),
        '--serve-params',
        join(tmpDir, 'serve.json'),
        '--startup-params',
        join(tmpDir, 'startup.json'),
        '--num-iters-warmup',
        '0',
        '-o',
        tmpDir,
        '-e',
        'st',
      ],
      { timeoutMs: 150_000 },
    )
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const exp = join(tmpDir, 'st')
    expect((await readdir(exp)).sort()).toEqual([
      'SERVE--max_num_seqs=2-STARTUP--quick',
      'SERVE--max_num_seqs=8-STARTUP--quick',
      'summary.csv',
    ])
    const result = JSON.parse(
      await readFile(join(exp, 'SERVE--max_num_seqs=8-STARTUP--quick', 'run=0.json'), 'utf8'),
    )
    expect(Object.keys(result)).toEqual([
      'avg_cold_startup_time',
      'cold_startup_times',
      'cold_startup_percentiles',
      'avg_warm_startup_time',
      'warm_startup_times',
      'warm_startup_percentiles',
      'run_number',
      'max_num_seqs',
      '_benchmark_name',
      'num_iters_cold',
      'num_iters_warm',
    ])
    expect(result.cold_startup_times).toHaveLength(2)
    expect(result.warm_startup_times).toHaveLength(1)
    // A start takes some time, and the percentiles lie within the times measured.
    for (const t of [...result.cold_startup_times, ...result.warm_startup_times]) expect(t).toBeGreaterThan(0)
    expect(Object.keys(result.cold_startup_percentiles)).toEqual(['10', '25', '50', '75', '90', '99'])
    expect(result.cold_startup_percentiles['50']).toBeCloseTo(result.avg_cold_startup_time, 12)
    // The command was run with each point's flags, and the iteration keys were not passed to it.
    expect(run.stdout).toContain("'--itl-ms', '1', '--max-num-seqs', '8']")
    expect(run.stdout).not.toContain('--num-iters-cold')
    // sweep plot reads the startup experiment like any other.
    const plot = await runCli([
      'sweep',
      'plot',
      exp,
      '--var-x',
      'max_num_seqs',
      '--var-y',
      'avg_cold_startup_time',
    ])
    expect(plot.code, plot.stderr).toBe(0)
    expect((await readdir(exp)).includes('FIGURE.png')).toBe(true)
  })
})
