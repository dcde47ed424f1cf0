import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../errors.ts'
import { parseArgs } from '../parse-args.ts'
import {
  datasetSize,
  estimateWorkload,
  interLoads,
  resolveSweepWorkloadArgs,
  runSweepWorkload,
  SWEEP_SLA_FLAGS,
  SWEEP_WORKLOAD_FLAGS,
} from './serve-workload.ts'

const dir = mkdtempSync(join(tmpdir(), 'servebench-workload-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
writeFileSync(join(dir, 'bench.json'), JSON.stringify({ short: { random_output_len: 4 } }))
writeFileSync(join(dir, 'bad-bench.json'), JSON.stringify([{ 'request-rate': 3 }]))

const BASE = [
  '--serve-cmd',
  'servebench sim --port 9',
  '--bench-cmd',
  'servebench serve --num-prompts 40',
  '--num-runs',
  '1',
]
const NOW = new Date(2026, 0, 2, 3, 4, 5)

describe('the loads a workload sweep explores', () => {
  // Reference: numpy.linspace(1, 20, 10)[1:-1] rounded with Python's round().
  it('spaces them as numpy.linspace without its ends, rounded half to even', () => {
    expect(interLoads(1, 20, 10)).toEqual([3, 5, 7, 9, 12, 14, 16, 18])
    // linspace(1, 4, 4) = 1, 2, 3, 4; linspace(0, 5, 3) = 0, 2.5, 5 → round(2.5) = 2.
    expect(interLoads(1, 4, 4)).toEqual([2, 3])
    expect(interLoads(0, 5, 3)).toEqual([2])
  })

  it('drops repeats when the range is narrow, and runs none for two iterations', () => {
    expect(interLoads(3, 4, 10)).toEqual([3, 4])
    expect(interLoads(1, 100, 2)).toEqual([])
  })

  it('estimates concurrency from throughput × mean E2EL (Little’s law)', () => {
    const run = { request_throughput: 8, mean_e2el_ms: 500 }
    expect(estimateWorkload(run, 'request_rate')).toBe(8)
    expect(estimateWorkload(run, 'max_concurrency')).toBe(4)
  })

  it('takes the dataset size from the bench point, else the bench command, else 1000', () => {
    expect(datasetSize({ num_prompts: 12 }, ['x', '--num-prompts', '40'])).toBe(12)
    expect(datasetSize({}, ['x', '--num-prompts', '40'])).toBe(40)
    expect(datasetSize({}, ['x', '--num-prompts=7'])).toBe(7)
    expect(datasetSize({}, ['x'])).toBe(1000)
  })
})

describe('servebench sweep serve_workload and serve_sla (dry runs)', () => {
  it('runs the serial and batch loads of each point in upstream’s folders, then stops', async () => {
    const args = resolveSweepWorkloadArgs(
      parseArgs(
        [...BASE, '--bench-params', join(dir, 'bench.json'), '-o', dir, '--dry-run'],
        SWEEP_WORKLOAD_FLAGS,
      ),
      'workload',
      NOW,
    )
    const lines: string[] = []
    expect(await runSweepWorkload(args, { log: (l) => lines.push(l) })).toBeUndefined()
    expect(lines.filter((l) => /^(\[|Dataset|Number|Output file|Omitting)/.test(l))).toEqual([
      '[BEGIN SERVER]',
      '[WL START]',
      'Number of workload iterations: 10',
      'Dataset size: 40',
      '[BEGIN BENCHMARK]',
      `Output file: ${join(dir, '20260102_030405', 'BENCH--short-WL--request_rate=1', 'run=0.json')}`,
      '[END BENCHMARK]',
      '[BEGIN BENCHMARK]',
      `Output file: ${join(dir, '20260102_030405', 'BENCH--short-WL--request_rate=40', 'run=0.json')}`,
      '[END BENCHMARK]',
      'Omitting intermediate workload iterations.',
      '[WL END]',
      '[END SERVER]',
    ])
    // Serial: one request at a time at rate 1; batch: every prompt at once.
    const commands = lines.filter((l) => l.startsWith('Benchmark command:'))
    expect(commands[0]).toContain("'--max-concurrency', '1', '--request-rate', '1'")
    expect(commands[1]).toContain("'--max-concurrency', '40', '--request-rate', '40'")
  })

  it('names serve_sla’s folders after the bench point with the variable set', async () => {
    const args = resolveSweepWorkloadArgs(
      parseArgs(
        [...BASE, '--sla-variable', 'max_concurrency', '-o', dir, '-e', 'sla', '--dry-run'],
        SWEEP_SLA_FLAGS,
      ),
      'sla',
      NOW,
    )
    const lines: string[] = []
    await runSweepWorkload(args, { log: (l) => lines.push(l) })
    expect(lines.filter((l) => l.startsWith('Output file:'))).toEqual([
      `Output file: ${join(dir, 'sla', 'BENCH--max_concurrency=1', 'run=0.json')}`,
      `Output file: ${join(dir, 'sla', 'BENCH--max_concurrency=1000', 'run=0.json')}`,
    ])
    expect(lines).toContain('[SLA START]')
    expect(lines).toContain('Number of SLA iterations: 10')
  })

  it('names a bad variable, too few iterations and a bench point that sets the variable', () => {
    let error: unknown
    try {
      resolveSweepWorkloadArgs(
        parseArgs(
          [
            ...BASE,
            '--workload-var',
            'num_prompts',
            '--workload-iters',
            '1',
            '--bench-params',
            join(dir, 'bad-bench.json'),
          ],
          SWEEP_WORKLOAD_FLAGS,
        ),
        'workload',
        NOW,
      )
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).issues).toEqual([
      { path: '--workload-var', message: 'must be request_rate or max_concurrency (got num_prompts)' },
      { path: '--workload-iters', message: 'must be an integer of at least 2 (got 1)' },
    ])
    expect(() =>
      resolveSweepWorkloadArgs(
        parseArgs([...BASE, '--bench-params', join(dir, 'bad-bench.json')], SWEEP_WORKLOAD_FLAGS),
        'workload',
        NOW,
      ),
    ).toThrow('--bench-params must not set request_rate: the workload sweep explores it (--workload-var)')
  })
})
