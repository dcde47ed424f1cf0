import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ConfigError } from '../../errors.ts'
import { parseArgs } from '../parse-args.ts'
import { phaseKeys, pointIterations, runSweepStartup } from './run-startup.ts'
import { resolveSweepStartupArgs, SWEEP_STARTUP_FLAGS } from './startup-flags.ts'

const dir = mkdtempSync(join(tmpdir(), 'servebench-startup-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
writeFileSync(join(dir, 'startup.json'), JSON.stringify([{ num_iters_cold: 1, enforce_eager: true }]))
writeFileSync(join(dir, 'bad.json'), JSON.stringify([{ num_iters_warm: -1 }]))
const NOW = new Date(2026, 0, 2, 3, 4, 5)
const resolve = (argv: string[]) =>
  resolveSweepStartupArgs(parseArgs(argv, SWEEP_STARTUP_FLAGS, 'servebench sweep startup'), NOW)

describe('servebench sweep startup (vllm/benchmarks/sweep/startup.py)', () => {
  it('writes vllm bench startup’s keys of a phase: mean, times and numpy percentiles', () => {
    const keys = phaseKeys('cold', [1, 2, 3, 4])
    expect(keys).toMatchObject({ avg_cold_startup_time: 2.5, cold_startup_times: [1, 2, 3, 4] })
    // Reference: numpy.percentile([1, 2, 3, 4], [10, 25, 50, 75, 90, 99]).
    const expected = { '10': 1.3, '25': 1.75, '50': 2.5, '75': 3.25, '90': 3.7, '99': 3.97 }
    const percentiles = keys.cold_startup_percentiles as Record<string, number>
    expect(Object.keys(percentiles)).toEqual(Object.keys(expected))
    for (const [p, v] of Object.entries(expected)) expect(percentiles[p]).toBeCloseTo(v, 12)
    expect(phaseKeys('warm', [])).toEqual({})
  })

  it('takes the counts from a startup point over the flags', () => {
    expect(pointIterations({ num_iters_cold: 1 }, { cold: 3, warmup: 1, warm: 3 })).toEqual({
      cold: 1,
      warmup: 1,
      warm: 3,
    })
  })

  it('prints the server command of each point in its STARTUP folder on a dry run', async () => {
    const args = resolve([
      '--startup-cmd',
      'vllm serve m',
      '--startup-params',
      join(dir, 'startup.json'),
      '-o',
      dir,
      '--dry-run',
    ])
    const lines: string[] = []
    expect(await runSweepStartup(args, { log: (l) => lines.push(l) })).toBeUndefined()
    expect(lines.filter((l) => /^(Benchmark command|Output file)/.test(l))).toEqual([
      "Benchmark command: ['vllm', 'serve', 'm', '--enforce-eager']",
      `Output file: ${join(dir, '20260102_030405', 'STARTUP--num_iters_cold=1-enforce_eager=True', 'run=0.json')}`,
    ])
  })

  it('names a missing command, a bad count and a run that would measure nothing', () => {
    let error: unknown
    try {
      resolve(['--startup-params', join(dir, 'bad.json'), '--num-iters-cold', '0', '--num-iters-warm', '0'])
    } catch (e) {
      error = e
    }
    expect((error as ConfigError).issues).toEqual([
      { path: '--startup-cmd', message: 'is required (the server command, as one quoted string)' },
      { path: '--startup-params', message: 'num_iters_warm must be an integer of at least 0 (got -1)' },
      { path: '--num-iters-cold', message: 'and --num-iters-warm are both 0: nothing would be measured' },
    ])
  })
})
