import { describe, expect } from 'vitest'
import { intendedSamplesMs } from '../src/metrics/result-samples.ts'
import { resultForFile } from '../src/report/result/result-json.ts'
import { configFrom, runAndWrite, smallRunFlags } from './faults/fault-helpers.ts'
import { test } from './helpers.ts'

// Coordinated omission: a server that serves about 12 req/s (two slots, ~170 ms a request)
// offered 40 req/s holds every later request back in the client's concurrency queue. Plain TTFT
// starts when a request is finally sent and stays near the server's 100 ms; measured from the
// schedule's intended send time it grows with the backlog.
describe('latency from the intended send time', () => {
  test.override({ simOptions: { ttftMs: 100, itlMs: 10, recordTimings: true } })

  test('an open loop above what the server serves shows intended latency well above plain latency', async ({
    sim,
    tmpDir,
  }) => {
    const config = configFrom(
      smallRunFlags(sim.url, ['--num-prompts', '30', '--max-concurrency', '2', '--request-rate', '40']),
    )
    config.percentileMetrics = ['ttft', 'tpot', 'itl', 'e2el']
    const { outcome, file } = await runAndWrite(config, tmpDir)
    const stat = (key: string): number => file[key] as number
    expect(outcome.records.every((rec) => rec.success)).toBe(true)
    // The last of 30 requests was meant to leave at about 0.75 s, and could not before ~2.4 s.
    expect(stat('median_intended_ttft_ms')).toBeGreaterThan(3 * stat('median_ttft_ms'))
    expect(stat('p99_intended_ttft_ms')).toBeGreaterThan(stat('p99_ttft_ms') + 1000)
    expect(stat('p99_intended_e2el_ms')).toBeGreaterThan(stat('p99_e2el_ms') + 1000)
    // Per request: the intended latency is the plain one plus the intended delay, kept with --save-detailed.
    const delays = file.intended_delays as number[]
    const summary = resultForFile(outcome.result, false)
    expect(summary).not.toHaveProperty('intended_delays')
    expect(summary).toHaveProperty('p99_intended_ttft_ms')
    expect(delays).toHaveLength(30)
    expect(Math.max(...delays)).toBeGreaterThan(1)
    if (outcome.kind !== 'generation') throw new Error(`a ${outcome.kind} run`)
    const samples = intendedSamplesMs(outcome.result, 'ttft')
    expect(samples).toHaveLength(30)
    expect(samples[29]).toBeCloseTo((file.ttfts[29]! + delays[29]!) * 1000, 6)
    expect(intendedSamplesMs(outcome.result, 'e2el')[29]).toBeCloseTo(
      (file.latencies[29]! + delays[29]!) * 1000,
      6,
    )
  })

  test('a ramp-up is an open loop too: its requests have intended send times', async ({ sim, tmpDir }) => {
    const config = configFrom(
      smallRunFlags(sim.url, [
        '--num-prompts',
        '8',
        ...['--ramp-up-strategy', 'linear', '--ramp-up-start-rps', '10', '--ramp-up-end-rps', '40'],
      ]),
    )
    const { file } = await runAndWrite(config, tmpDir)
    expect(file).toHaveProperty('p99_intended_ttft_ms')
    expect(file.intended_delays as number[]).toHaveLength(8)
  })

  test('a closed loop writes no intended keys', async ({ sim, tmpDir }) => {
    const config = configFrom(smallRunFlags(sim.url, ['--num-prompts', '6']))
    const { outcome, file } = await runAndWrite(config, tmpDir)
    expect(Object.keys(file).filter((k) => k.includes('intended'))).toEqual([])
    if (outcome.kind !== 'generation') throw new Error(`a ${outcome.kind} run`)
    expect(intendedSamplesMs(outcome.result, 'ttft')).toEqual([])
    // The self-check runs on closed loops too, written last.
    expect(Object.keys(file).at(-1)).toBe('client_health')
  })
})
