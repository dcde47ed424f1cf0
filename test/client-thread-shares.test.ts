import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RequestRecord } from '../src/config/records.ts'
import type { BenchResult } from '../src/report/result/result-types.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'
import { type SimServer, startSimulator } from '../src/sim/server.ts'
import { configFrom, runAndWrite, smallRunFlags } from './faults/fault-helpers.ts'

// Client threads own their share of the schedule, as segments do: the merged run of three threads
// holds the requests one thread sends on the same seed, on one schedule and one clock, and a stop
// reaches every thread. That the timings agree within the noise is judged on the wall clock, in
// test/serial/timing-relations.test.ts.
describe('client threads that own their share of the schedule', () => {
  let sim: SimServer
  let dir: string
  beforeAll(async () => {
    sim = await startSimulator({ ttftMs: 40, itlMs: 10 })
    dir = await mkdtemp(join(tmpdir(), 'servebench-shares-'))
  })
  afterAll(async () => {
    await sim.close()
    await rm(dir, { recursive: true, force: true })
  })

  const flags = (threads: number, extra: string[] = []) =>
    smallRunFlags(sim.url, ['--num-prompts', '30', '--client-threads', String(threads), ...extra])
  const idOf = (r: { requestId: string }) => Number(r.requestId.split('-').at(-1))

  it('three threads and one, on one seed, send the same requests into results that hold the same relations', async () => {
    const run = async (threads: number) => {
      const config = configFrom(flags(threads))
      config.percentileMetrics = ['ttft', 'tpot', 'itl', 'e2el']
      return runAndWrite(config, await mkdtemp(join(dir, `t${threads}-`)))
    }
    const one = await run(1)
    const three = await run(3)
    const same = (file: BenchResult) => ({
      completed: file.completed,
      failed: file.failed,
      total_input_tokens: file.total_input_tokens,
      total_output_tokens: file.total_output_tokens,
      input_lens: file.input_lens,
      output_lens: file.output_lens,
      generated_texts: file.generated_texts,
    })
    expect(same(three.file)).toEqual(same(one.file))
    expect(three.file.completed).toBe(30)
    // Merged back into schedule order: the record of request i is at i.
    expect(three.outcome.records.map(idOf)).toEqual(Array.from({ length: 30 }, (_, i) => i))
    // The threads' slots add up to the one --max-concurrency.
    expect(three.file.max_concurrent_requests).toBeLessThanOrEqual(4)
    for (const { file, outcome } of [one, three]) {
      // The simulator's fixed timing is a floor on both clocks, and every time lies inside the run.
      for (const ttft of file.ttfts) expect(ttft).toBeGreaterThanOrEqual(0.04)
      for (const [i, e2el] of file.latencies.entries()) expect(e2el).toBeGreaterThanOrEqual(file.ttfts[i]!)
      const clock = outcome.clock!
      for (const r of outcome.records) {
        expect(r.startTimeS).toBeGreaterThanOrEqual(clock.startS - 1e-3)
        expect(r.startTimeS + r.latencyS).toBeLessThanOrEqual(clock.endS + 1e-3)
      }
    }
    // Each thread dispatched its own share: its self-check carries its own dispatch lags.
    const health = three.file.client_health as {
      client_threads: number
      dispatch_lag_max_ms: number
      dispatch_lag_samples: number
      threads: Array<{ saturated: boolean; dispatch_lag_samples: number; duration_s: number }>
    }
    expect(health.client_threads).toBe(3)
    expect(health.threads).toHaveLength(3)
    for (const thread of health.threads) expect(thread.duration_s).toBeGreaterThan(0)
    // Each thread judged the lateness of its own sends; the run reports them together, not per thread.
    expect(health.dispatch_lag_samples).toBeGreaterThan(0)
    for (const thread of health.threads) expect(thread.dispatch_lag_samples).toBe(0)
  })

  it('an open loop sent by three threads keeps the one seeded schedule from one shared start', async () => {
    const intended = async (threads: number) => {
      const outcome = await runBenchmark(configFrom(flags(threads, ['--request-rate', '60'])))
      const start = outcome.clock!.startS
      return new Map(outcome.records.map((r) => [idOf(r), r.intendedTimeS! - start]))
    }
    const one = await intended(1)
    const three = await intended(3)
    expect([...three.keys()].sort((a, b) => a - b)).toEqual([...one.keys()].sort((a, b) => a - b))
    for (const [id, offsetS] of one) expect(three.get(id)).toBeCloseTo(offsetS, 6)
  })

  it('a segment sent by two threads holds its share of the schedule and starts at --start-at', async () => {
    const config = configFrom(flags(2, ['--segment', '1/2']))
    const startAtEpochMs = Date.now() + 1_500
    config.startAtEpochMs = startAtEpochMs
    const outcome = await runBenchmark(config)
    // Requests 1, 3, 5, …: the segment's share, dealt again over the two threads.
    expect(outcome.records.map(idOf)).toEqual(Array.from({ length: 15 }, (_, i) => 2 * i + 1))
    expect(outcome.scheduleIndexes).toEqual(Array.from({ length: 15 }, (_, i) => 2 * i + 1))
    // The threads are armed first and start at the shared instant, not before it.
    expect(outcome.clock!.startEpochMs).toBeGreaterThanOrEqual(startAtEpochMs - 1)
    for (const r of outcome.records) expect(r.startTimeS).toBeGreaterThanOrEqual(outcome.clock!.startS - 1e-3)
  })

  it('counts progress for every request, with the requests in flight on all threads', async () => {
    const seen: Array<{ done: number; total: number; inFlight: number }> = []
    await runBenchmark(configFrom(flags(3)), {
      onRequestEnd: (done, total, request) => seen.push({ done, total, inFlight: request!.inFlight }),
    })
    expect(seen.map((s) => s.done)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    expect(new Set(seen.map((s) => s.total))).toEqual(new Set([30]))
    for (const s of seen) expect(s.inFlight).toBeLessThanOrEqual(4)
  })
})

describe('failures and retries on client threads', () => {
  let sim: SimServer
  beforeAll(async () => {
    sim = await startSimulator({ ttftMs: 10, itlMs: 2 })
  })
  afterAll(() => sim.close())

  const run = async (extra: string[]) => {
    // The ready check is the first generation request; the fault hits a request of the timed run.
    sim.setFaults(['http500:nth=4'])
    return runBenchmark(
      configFrom(smallRunFlags(sim.url, ['--num-prompts', '24', '--client-threads', '2', ...extra])),
    )
  }

  it('a failed request on a thread is recorded and counted, with its error text', async () => {
    const outcome = await run([])
    expect(outcome.result).toMatchObject({ completed: 23, failed: 1 })
    const failed = outcome.records.filter((r) => !r.success)
    expect(failed).toHaveLength(1)
    expect(failed[0]!.error).toMatch(/500/)
  })

  it("--max-retries retries on the thread, and the threads' retries add up to the run's", async () => {
    const outcome = await run(['--max-retries', '1'])
    expect(outcome.result).toMatchObject({ completed: 24, failed: 0 })
    expect(outcome.retries).toEqual({ retries: 1, retriedRequests: 1, recovered: 1 })
  })
})

describe('a stop reaches every client thread', () => {
  let sim: SimServer
  beforeAll(async () => {
    // Two seconds a request: a stop always finds the first four in flight.
    sim = await startSimulator({ ttftMs: 40, itlMs: 10 })
  })
  afterAll(() => sim.close())

  const stopped = async (force: boolean): Promise<{ records: RequestRecord[]; interrupted: boolean }> => {
    const stop = new AbortController()
    const forceStop = new AbortController()
    const config = configFrom(
      smallRunFlags(sim.url, ['--num-prompts', '24', '--random-output-len', '200', '--client-threads', '3']),
    )
    const running = runBenchmark(config, { signal: stop.signal, forceSignal: forceStop.signal })
    // Once the threads hold the first four requests of the timed run (the ready check's one is over).
    while (sim.stats().running < 4) await new Promise((resolve) => setTimeout(resolve, 20))
    stop.abort()
    if (force) forceStop.abort()
    const outcome = await running
    return { records: outcome.records, interrupted: outcome.interrupted }
  }

  it('the first interrupt stops new sends and lets those in flight finish', async () => {
    const { records, interrupted } = await stopped(false)
    expect(interrupted).toBe(true)
    // --max-concurrency 4: four were in flight over the three threads, and no thread sent more.
    expect(records).toHaveLength(4)
    for (const r of records) expect(r).toMatchObject({ success: true, outputLen: 200 })
  })

  it('the second aborts them on every thread, and what was measured is kept as failed requests', async () => {
    const { records, interrupted } = await stopped(true)
    expect(interrupted).toBe(true)
    expect(records).toHaveLength(4)
    for (const r of records) {
      expect(r.success).toBe(false)
      expect(r.error).not.toBe('')
    }
  })
})
