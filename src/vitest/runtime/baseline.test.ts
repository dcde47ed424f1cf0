import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BenchResult } from '../../report/result/result-types.ts'
import { createRng } from '../../rng.ts'
import { type BaselineContext, matchBaseline } from './baseline.ts'
import { formatChange, formatNeeded, formatP } from './baseline-format.ts'
import { baselineFilePath } from './baseline-store.ts'
import type { BaselineProvenance } from './provenance.ts'

/**
 * A synthetic closed-loop result: `slots` requests in flight, 32 output tokens `itlMs` apart, a TTFT
 * around `ttftMs` shared by the requests of a wave, on a runner whose speed drifts (seeded).
 */
function closedLoop(seed: number, { itlMs = 10, ttftMs = 30, slots = 8, perSlot = 25 } = {}): BenchResult {
  const rng = createRng(seed)
  const drift = Array.from({ length: 400 }, () => Math.exp(0.05 * rng.normal()))
  const speed = (t: number): number => drift[Math.min(drift.length - 1, Math.floor(t / 0.5))]!
  const rows: Array<{ start: number; ttft: number; itls: number[]; latency: number }> = []
  for (let s = 0; s < slots; s++) {
    let t = 0
    for (let k = 0; k < perSlot; k++) {
      const ttft = (ttftMs / 1000) * Math.exp(0.15 * rng.normal()) * speed(t)
      const itls: number[] = []
      let at = t + ttft
      for (let i = 1; i < 32; i++) {
        const gap = (itlMs / 1000) * Math.exp(0.1 * rng.normal()) * speed(at)
        itls.push(gap)
        at += gap
      }
      rows.push({ start: t, ttft, itls, latency: at - t })
      t = at
    }
  }
  rows.sort((a, b) => a.start - b.start)
  return {
    backend: 'openai-chat',
    max_concurrency: slots,
    completed: rows.length,
    failed: 0,
    ttfts: rows.map((r) => r.ttft),
    latencies: rows.map((r) => r.latency),
    itls: rows.map((r) => r.itls),
    output_lens: rows.map(() => 32),
    input_lens: rows.map(() => 128),
    start_times: rows.map((r) => r.start),
    errors: rows.map(() => ''),
    output_throughput: 0,
  } as unknown as BenchResult
}

const provenance: BaselineProvenance = {
  server: { host: '127.0.0.1:8000', modelId: 'm', modelRoot: 'org/m', version: '0.6.1' },
  tokenizer: 'org/m',
  client: { cores: 2, node: '20.20.2', platform: 'linux', arch: 'x64' },
  servebench: '0.1.0',
}
const workload = { load: { kind: 'closed', maxConcurrency: 8 }, dataset: { numPrompts: 200 } }
const metrics = ['mean_ttft_ms', 'p90_ttft_ms', 'mean_tpot_ms', 'output_throughput']

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-baseline-unit-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

function ctx(file: string, extra: Partial<BaselineContext> = {}): BaselineContext {
  return {
    file: join(dir, file),
    name: 'decode',
    fingerprint: 'f1',
    update: 'new',
    baselineDir: join(dir, 'baselines'),
    root: dir,
    provenance,
    workload,
    ...extra,
  }
}

describe('matchBaseline', () => {
  it('records k runs in a version-2 file with one line per number array', async () => {
    const out = matchBaseline(closedLoop(1), { metrics }, ctx('a.bench.ts', { recordRuns: [closedLoop(2)] }))
    expect(out).toMatchObject({ pass: true, verdict: 'pass' })
    expect(out.summary).toContain("Baseline written: 'decode' (2 runs)")
    const path = baselineFilePath(join(dir, 'baselines'), dir, join(dir, 'a.bench.ts'))
    const text = await readFile(path, 'utf8')
    const file = JSON.parse(text)
    expect(file.version).toBe(2)
    const record = file.benchmarks.decode
    expect(record).toMatchObject({ fingerprint: 'f1', provenance, workload })
    expect(record.runs).toHaveLength(2)
    expect(record.runs[0].samples.ttft).toHaveLength(200)
    expect(record.runs[0].blocks.ttft).toHaveLength(200)
    expect(record.runs[0].blocks.itl).toHaveLength(200 * 31)
    expect(record.runs[0].windows.output_throughput.length).toBeGreaterThanOrEqual(4)
    expect(text).toMatch(/^ +"ttft": \[[\d.,]+\],$/m)
    expect(text).toMatch(/^ +"output_throughput": \[[\d.,]+\],$/m)
  })

  it('passes an unchanged run, one line per check with verdict, change, interval and p-value', () => {
    const out = matchBaseline(closedLoop(3), { metrics }, ctx('a.bench.ts'))
    expect(out.verdict).not.toBe('fail')
    expect(out.pass).toBe(true)
    expect(out.checks.map((c) => c.metric)).toEqual([
      'mean TTFT',
      'p90 TTFT',
      'mean TPOT',
      'output throughput',
    ])
    for (const c of out.checks) {
      expect(c.interval![0]).toBeLessThanOrEqual(c.interval![1])
      expect(c.pValue).toBeGreaterThan(0)
    }
    expect(out.lines[0]).toMatch(
      /^ {2}(✓ pass|\? inconclusive) {1,2}mean TTFT \d+\.\d ms vs \d+\.\d ms: [+-]\d+\.\d% \(95% CI [+-]\d+\.\d% … [+-]\d+\.\d%, p[=<][\d.]+\)/,
    )
  })

  it('fails a 25% slower decode on TPOT and on output throughput', () => {
    const out = matchBaseline(closedLoop(4, { itlMs: 12.5 }), { metrics }, ctx('a.bench.ts'))
    expect(out).toMatchObject({ pass: false, verdict: 'fail' })
    const byMetric = Object.fromEntries(out.checks.map((c) => [c.metric, c]))
    expect(byMetric['mean TPOT']).toMatchObject({ verdict: 'fail', pass: false })
    expect(byMetric['output throughput']).toMatchObject({ verdict: 'fail', pass: false })
    expect(byMetric['output throughput']!.interval![1]).toBeLessThan(0)
    expect(out.summary).toMatch(
      /^Baseline regression: .*mean TPOT \+2\d\.\d% \(95% CI .*p<0\.001\).* past the 10% tolerance$/,
    )
  })

  it('reports changed provenance as notes, not failures', () => {
    const moved = { ...provenance, server: { ...provenance.server!, version: '0.7.0' }, servebench: '0.2.0' }
    const out = matchBaseline(closedLoop(3), { metrics }, ctx('a.bench.ts', { provenance: moved }))
    expect(out.notes).toEqual([
      'provenance changed: servebench 0.1.0 → 0.2.0',
      'provenance changed: server.version 0.6.1 → 0.7.0',
    ])
    expect(out.lines.at(-1)).toBe('  note: provenance changed: server.version 0.6.1 → 0.7.0')
    expect(out.pass).toBe(true)
  })

  it('names the workload fields that made a baseline stale', () => {
    const out = matchBaseline(
      closedLoop(3),
      { metrics },
      ctx('a.bench.ts', {
        fingerprint: 'f2',
        workload: { ...workload, load: { kind: 'closed', maxConcurrency: 16 } },
      }),
    )
    expect(out).toMatchObject({ pass: false, verdict: 'fail' })
    expect(out.summary).toBe(
      "Baseline stale: 'decode' was recorded with another configuration: load.maxConcurrency 8 → 16; run with -u to re-record it",
    )
  })

  it('marks an undecided check inconclusive with the requests that would decide it', () => {
    // 10% slower TTFT against a 10% tolerance: the point sits near the tolerance.
    const out = matchBaseline(closedLoop(5, { ttftMs: 33 }), { metrics: ['mean_ttft_ms'] }, ctx('a.bench.ts'))
    const check = out.checks[0]!
    if (check.verdict === 'inconclusive') {
      expect(check.neededRequests).toBeGreaterThan(200)
      expect(out.lines[0]).toMatch(
        /— (about [\d,]+ requests would decide it|the estimate sits on the limit|no number of requests would decide it: the baseline's runs differ)/,
      )
      expect(out.summary).toMatch(/^Baseline inconclusive: mean TTFT /)
    } else expect(check.verdict).toBe('fail')
  })

  it('leaves p99 of 64 requests undecided (no upper bound exists below 368 samples)', () => {
    const small = { slots: 8, perSlot: 8 }
    const c = (extra: Partial<BaselineContext> = {}): BaselineContext => ctx('small.bench.ts', extra)
    matchBaseline(closedLoop(6, small), { metrics: ['p99_ttft_ms'] }, c())
    const out = matchBaseline(
      closedLoop(7, { ...small, ttftMs: 45 }),
      { metrics: ['p99_ttft_ms', 'mean_ttft_ms'] },
      c(),
    )
    const [p99, mean] = out.checks
    expect(p99).toMatchObject({ verdict: 'inconclusive', neededRequests: 368 })
    expect(mean!.verdict).toBe('fail')
  })

  it('tells the user to rerecord a version-1 file, and -u replaces it', async () => {
    const path = baselineFilePath(join(dir, 'baselines'), dir, join(dir, 'old.bench.ts'))
    await writeFile(path, JSON.stringify({ version: 1, benchmarks: { decode: { samples: {} } } }))
    const out = matchBaseline(closedLoop(1), { metrics }, ctx('old.bench.ts'))
    expect(out).toMatchObject({ pass: false, verdict: 'fail' })
    expect(out.summary).toBe(
      `Baseline outdated: ${path} was written by an older servebench (baseline file version 1); rerecord it with -u and commit the file`,
    )
    expect(matchBaseline(closedLoop(1), { metrics }, ctx('old.bench.ts', { update: 'all' })).pass).toBe(true)
    expect(JSON.parse(await readFile(path, 'utf8')).version).toBe(2)
  })

  it('rejects the removed test option by name', () => {
    expect(() => matchBaseline(closedLoop(1), { test: 'both' }, ctx('a.bench.ts'))).toThrow(
      "toMatchBaseline: unknown key 'test' (valid: metrics, tolerance, alpha)",
    )
  })
})

describe('baseline text', () => {
  it('cuts p-values to two digits so none prints as the threshold it is below', () => {
    expect([0.0495, 0.0029, 0.13, 0.0009].map(formatP)).toEqual(['p=0.049', 'p=0.0029', 'p=0.13', 'p<0.001'])
  })

  it('writes a change with its interval level, and the requests needed', () => {
    expect(formatChange({ relative: 0.154, interval: [0.12, 0.189], pValue: 0.0002 })).toBe(
      '+15.4% (95% CI +12.0% … +18.9%, p<0.001)',
    )
    expect(formatChange({ relative: -0.05, interval: [-0.1, 0], pValue: 0.5 }, 0.9)).toBe(
      '-5.0% (90% CI -10.0% … +0.0%, p=0.5)',
    )
    expect(formatNeeded(1899.2)).toBe('about 1,900 requests would decide it')
    expect(formatNeeded(Number.POSITIVE_INFINITY, [-0.05, 0.125])).toBe(
      "no number of requests would decide it: the baseline's runs differ from one another by -5.0% to +12.5%",
    )
  })
})
