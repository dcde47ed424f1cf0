import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { configFingerprint } from '../src/config/fingerprint.ts'
import { mergeSegments } from '../src/report/result/merge-segments.ts'
import { parsePythonJson } from '../src/report/result/py-json.ts'
import { validateResultFile } from '../src/report/result/schema/index.ts'
import { buildSegmentFile } from '../src/report/result/segment-file.ts'
import { resultSetup } from '../src/runner/result-setup.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'
import { segmentFileOf } from '../src/runner/segment-file-of.ts'
import { type SimServer, startSimulator } from '../src/sim/server.ts'
import { replaySegments } from '../src/vitest/runtime/suite-segments.ts'
import { configFrom, smallRunFlags } from './faults/fault-helpers.ts'
import { runCli } from './helpers.ts'

// Execution segments: n processes each send every n-th request of one seeded schedule, and
// `servebench merge` recomputes the result from all of them, as if one process had sent it.
const FLAGS = [
  '--num-prompts',
  '24',
  '--request-rate',
  '60',
  '--seed',
  '7',
  '--percentile-metrics',
  'ttft,tpot,itl,e2el',
]

/** numpy's linear percentile, written here apart from src/metrics so the merge is checked independently. */
function npPercentile(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b)
  const rank = (p / 100) * (s.length - 1)
  const lo = Math.floor(rank)
  const hi = Math.min(lo + 1, s.length - 1)
  return s[lo]! + (s[hi]! - s[lo]!) * (rank - lo)
}
const avg = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length

/** Every metric of a detailed result recomputed from its own per-request arrays. */
function expectRecomputed(file: Record<string, unknown>): void {
  const errors = file.errors as string[]
  const ok = errors.map((e, i) => (e === '' ? i : -1)).filter((i) => i >= 0)
  const pick = <T>(key: string): T[] => ok.map((i) => (file[key] as T[])[i]!)
  const inputs = pick<number>('input_lens')
  const outputs = pick<number>('output_lens')
  const ttfts = pick<number>('ttfts')
  const latencies = pick<number>('latencies')
  const starts = pick<number>('start_times')
  const itls = pick<number[]>('itls').flat()
  const duration = file.duration as number
  const close = (key: string, value: number): void => {
    expect(file[key] as number, key).toBeCloseTo(value, 9)
  }
  expect(file.completed).toBe(ok.length)
  expect(file.failed).toBe(errors.length - ok.length)
  expect(file.total_input_tokens).toBe(inputs.reduce((a, b) => a + b, 0))
  expect(file.total_output_tokens).toBe(outputs.reduce((a, b) => a + b, 0))
  // The run lasts at least from its first send to its last answer.
  expect(duration).toBeGreaterThanOrEqual(
    Math.max(...starts.map((s, i) => s + latencies[i]!)) - Math.min(...starts),
  )
  close('request_throughput', ok.length / duration)
  close('output_throughput', outputs.reduce((a, b) => a + b, 0) / duration)
  for (const [family, samples] of [
    ['ttft', ttfts],
    ['e2el', latencies],
    ['itl', itls],
  ] as const) {
    close(`mean_${family}_ms`, avg(samples) * 1000)
    close(`median_${family}_ms`, npPercentile(samples, 50) * 1000)
    close(`p99_${family}_ms`, npPercentile(samples, 99) * 1000)
  }
  const tpots = ok
    .filter((_, k) => outputs[k]! > 1)
    .map(
      (i) =>
        ((file.latencies as number[])[i]! - (file.ttfts as number[])[i]!) /
        ((file.output_lens as number[])[i]! - 1),
    )
  close('p99_tpot_ms', npPercentile(tpots, 99) * 1000)
}

describe('--segment and servebench merge', () => {
  let sim: SimServer
  let dir: string
  beforeAll(async () => {
    sim = await startSimulator({ ttftMs: 20, itlMs: 5, recordTimings: true })
    dir = await mkdtemp(join(tmpdir(), 'servebench-segments-'))
  })
  afterAll(async () => {
    await sim.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('two processes with a shared --start-at merge into the one-process result, recomputed exactly', async () => {
    const out = join(dir, 'cli')
    const startAt = String(Date.now() + 1_500)
    const args = (i: number) => [
      'serve',
      // Constant arrivals, written `"burstiness": Infinity` as Python writes it: merge reads it back.
      ...smallRunFlags(sim.url, [
        ...FLAGS,
        '--burstiness',
        'inf',
        '--segment',
        `${i}/2`,
        '--start-at',
        startAt,
      ]),
      '--result-dir',
      out,
      '--result-filename',
      'run.json',
    ]
    const runs = await Promise.all([runCli(args(0)), runCli(args(1))])
    for (const run of runs) expect(run.code, run.stderr).toBe(0)
    expect(runs[0]!.stdout).toContain('servebench: segment written to')
    const segments = [join(out, 'run.segment-0-of-2.json'), join(out, 'run.segment-1-of-2.json')]
    const merged = await runCli([
      'merge',
      ...segments,
      '--save-result',
      '--save-detailed',
      '--result-dir',
      join(dir, 'merged'),
      '--result-filename',
      'merged.json',
    ])
    expect(merged.code, merged.stderr).toBe(0)
    expect(merged.stdout).toMatch(/merged 2 segments, 24 requests; start skew \d+\.\d ms/)
    expect(merged.stdout).toContain('Serving Benchmark Result')
    const text = await readFile(join(dir, 'merged', 'merged.json'), 'utf8')
    expect(text).toContain('"burstiness": Infinity, ')
    const file = parsePythonJson(text) as Record<string, unknown>
    expect(file.burstiness).toBe(Number.POSITIVE_INFINITY)
    // compare and report read it as a number too.
    const merged2 = join(dir, 'merged', 'merged.json')
    const compared = await runCli(['compare', merged2, merged2, '--fail-on', 'request_throughput:-5%'])
    expect(compared.code, compared.stderr).toBe(0)
    const report = await runCli(['report', merged2, '-o', join(dir, 'merged', 'report.html')])
    expect(report.code, report.stderr).toBe(0)
    expect(validateResultFile(file)).toEqual({ valid: true })
    expectRecomputed(file)
    const info = file.segments as { count: number; start_skew_ms: number; start_epoch_ms: number[] }
    expect(info.count).toBe(2)
    expect(info.start_epoch_ms.every((ms) => ms >= Number(startAt))).toBe(true)
    // The same dataset as one process sending the whole schedule, request for request.
    const single = await runBenchmark(configFrom(smallRunFlags(sim.url, FLAGS)))
    expect(file.completed).toBe(24)
    expect(file.input_lens).toEqual(single.result.input_lens)
    expect(file.output_lens).toEqual(single.result.output_lens)
    expect(file.total_input_tokens).toBe(single.result.total_input_tokens)
    expect(file.num_prompts).toBe(24)

    // A missing or repeated segment, or one of another benchmark, is an error naming it.
    const missing = await runCli(['merge', segments[0]!])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('segment 1/2 is missing: merge needs every segment once')
    expect(await readdir(out)).toEqual(['run.segment-0-of-2.json', 'run.segment-1-of-2.json'])
  })

  it('four segments merge to one run: same requests, every metric recomputed, a stranger refused', async () => {
    const base = configFrom(smallRunFlags(sim.url, FLAGS))
    const files = await Promise.all(
      [0, 1, 2, 3].map(async (index) => {
        const config = configFrom(smallRunFlags(sim.url, [...FLAGS, '--segment', `${index}/4`]))
        expect(configFingerprint(config)).toBe(configFingerprint(base))
        const outcome = await runBenchmark(config)
        const result = outcome.result
        return {
          path: `segment-${index}.json`,
          value: JSON.parse(
            JSON.stringify(
              buildSegmentFile({
                index,
                count: 4,
                fingerprint: configFingerprint(config),
                clock: outcome.clock!,
                interrupted: false,
                setup: resultSetup(config, {
                  date: String(result.date),
                  modelId: String(result.model_id),
                  tokenizerId: String(result.tokenizer_id),
                  numPrompts: config.numPrompts,
                }),
                metrics: {
                  percentileMetrics: config.percentileMetrics,
                  metricPercentiles: config.metricPercentiles,
                  hasTokenizer: true,
                  maxConcurrency: 4,
                  requestRateFinite: true,
                  openLoop: true,
                },
                records: outcome.records,
                scheduleIndexes: outcome.scheduleIndexes!,
              }),
            ),
          ) as unknown,
        }
      }),
    )
    // Each segment sent every 4th request of the schedule.
    const indexes = files.map((f) =>
      (f.value as { records: Array<{ scheduleIndex: number }> }).records.map((r) => r.scheduleIndex),
    )
    expect(indexes[1]).toEqual([1, 5, 9, 13, 17, 21])
    const merged = mergeSegments(files)
    expect(merged.records.map((r) => r.requestId.split('-').at(-1))).toEqual(
      Array.from({ length: 24 }, (_, i) => String(i)),
    )
    const file = JSON.parse(JSON.stringify(merged.result)) as Record<string, unknown>
    expect(validateResultFile(file)).toEqual({ valid: true })
    expectRecomputed(file)
    expect(file).toHaveProperty('p99_intended_ttft_ms')
    const single = await runBenchmark(base)
    expect(file.input_lens).toEqual(single.result.input_lens)
    expect(() => mergeSegments([files[0]!, ...files])).toThrow(
      'segment 0/4 is given 2 times: segment-0.json, segment-0.json',
    )
    // A suite's merge run over a folder without its segments names the variable and the fingerprint.
    await expect(replaySegments('0123456789abcdef', dir)).rejects.toThrow(
      /SERVEBENCH_MERGE_SEGMENTS .* holds no segment file of this benchmark \(0123456789abcdef\.segment-\*\.json\)/,
    )
    // A segment of another benchmark (another seed) is named.
    const stranger = structuredClone(files[3]!)
    ;(stranger.value as { fingerprint: string }).fingerprint = 'ffffffffffffffff'
    stranger.path = 'other.json'
    expect(() => mergeSegments([...files.slice(0, 3), stranger])).toThrow(
      /other\.json belongs to another benchmark: configuration fingerprint ffffffffffffffff/,
    )
  })

  it('a closed loop merges with the steady-state window of the whole run, at the full --max-concurrency', async () => {
    const flags = ['--num-prompts', '24', '--max-concurrency', '4', '--steady-state-min-window', '0']
    const files = await Promise.all(
      [0, 1].map(async (index) => {
        const config = configFrom(smallRunFlags(sim.url, [...flags, '--segment', `${index}/2`]))
        const segment = segmentFileOf(config, await runBenchmark(config))!
        expect(segment.metrics.steadyState).toEqual({ threshold: 0.95, minWindowS: 0 })
        return { path: `closed-${index}.json`, value: JSON.parse(JSON.stringify(segment)) as unknown }
      }),
    )
    const file = JSON.parse(JSON.stringify(mergeSegments(files).result)) as Record<string, unknown>
    expect(validateResultFile(file)).toEqual({ valid: true })
    // Each segment held 2 of the 4 slots; the merged window is judged against all 4.
    expect(file.steady_state).toMatchObject({ window: { target_concurrency: 4 } })
  })
})
