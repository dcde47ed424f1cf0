import { describe, expect } from 'vitest'
import { readOnlyResult, runCli, test } from '../helpers.ts'
import { onQuietMachine } from './cpu-share.ts'

// Wall-clock bounds: the serial project runs alone, one file at a time, after the other projects; a
// machine busy with other work skips the bounds (cpu-share.ts).
describe('servebench serve measures the simulator timings', () => {
  test('median TTFT, ITL and TPOT within a few ms of the configured 40 ms and 10 ms', async ({
    sim,
    tmpDir,
    skip,
  }) => {
    const { result: run, busy } = await onQuietMachine(() =>
      runCli([
        'serve',
        '--base-url',
        sim.url,
        '--tokenizer',
        'cl100k_base',
        '--random-input-len',
        '64',
        '--random-output-len',
        '16',
        '--disable-tqdm',
        '--num-prompts',
        '40',
        '--max-concurrency',
        '8',
        '--save-result',
        '--result-dir',
        tmpDir,
        '--percentile-metrics',
        'ttft,tpot,itl,e2el',
      ]),
    )
    expect(run.code).toBe(0)
    const result = await readOnlyResult(tmpDir)
    expect(result.completed).toBe(40)
    if (busy) return skip(busy)
    // The simulator writes the first token 40 ms after reading the request and one token every 10 ms.
    // Tolerance: loopback and parsing add a few ms; never less than configured.
    expect(result.median_ttft_ms as number).toBeGreaterThanOrEqual(40)
    expect(result.median_ttft_ms as number).toBeLessThan(40 + 15)
    expect(result.median_itl_ms as number).toBeGreaterThan(10 - 3)
    expect(result.median_itl_ms as number).toBeLessThan(10 + 3)
    expect(result.median_tpot_ms as number).toBeCloseTo(10, 0)
  })
})
