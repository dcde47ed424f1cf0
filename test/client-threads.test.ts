import { mkdtemp, rm } from 'node:fs/promises'
import { type AddressInfo, connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BenchResult } from '../src/report/result/result-types.ts'
import { prepareRun } from '../src/runner/prepare.ts'
import { type SimServer, startSimulator } from '../src/sim/server.ts'
import { configFrom, runAndWrite, smallRunFlags } from './faults/fault-helpers.ts'

// --client-threads: the same run sent from one thread and from two gives the same requests, the
// same token counts and a valid result; only the timings may differ (by the machine's noise).
describe('--client-threads', () => {
  let sim: SimServer
  let dir: string
  beforeAll(async () => {
    sim = await startSimulator({ ttftMs: 40, itlMs: 10, recordTimings: true })
    dir = await mkdtemp(join(tmpdir(), 'servebench-threads-'))
  })
  afterAll(async () => {
    await sim.close()
    await rm(dir, { recursive: true, force: true })
  })

  const run = async (threads: string, extra: string[] = []) => {
    const config = configFrom(
      smallRunFlags(sim.url, ['--num-prompts', '24', '--client-threads', threads, ...extra]),
    )
    config.percentileMetrics = ['ttft', 'tpot', 'itl', 'e2el']
    return runAndWrite(config, await mkdtemp(join(dir, `t${threads}-`)))
  }

  it('two threads send what one sends, under the one global --max-concurrency, into a valid result', async () => {
    const one = await run('1')
    const two = await run('2')
    const same = (file: BenchResult) => ({
      completed: file.completed,
      failed: file.failed,
      total_input_tokens: file.total_input_tokens,
      total_output_tokens: file.total_output_tokens,
      input_lens: file.input_lens,
      output_lens: file.output_lens,
      generated_texts: file.generated_texts,
    })
    expect(same(two.file)).toEqual(same(one.file))
    expect(two.file.completed).toBe(24)
    // One FIFO limit for all threads: never more than 4 requests in flight.
    expect(two.file.max_concurrent_requests).toBeLessThanOrEqual(4)
    // Records are in dispatch order with ids by schedule index, and their times on the main clock.
    const indexes = (records: Array<{ requestId: string }>) =>
      records.map((r) => r.requestId.split('-').at(-1))
    expect(indexes(two.outcome.records)).toEqual(indexes(one.outcome.records))
    const clock = two.outcome.clock!
    for (const record of two.outcome.records) {
      expect(record.startTimeS).toBeGreaterThanOrEqual(record.arrivalTimeS - 1e-3)
      expect(record.startTimeS + record.latencyS).toBeLessThanOrEqual(clock.endS + 1e-3)
    }
    // The simulator's 40 ms TTFT is a floor for both; that their medians agree is judged on the wall
    // clock, in test/serial/dataset-timings.test.ts.
    for (const file of [one.file, two.file]) expect(file.median_ttft_ms).toBeGreaterThanOrEqual(40)
    // The self-check is per thread: the main thread's dispatch figures and one entry per client thread.
    const health = two.file.client_health as {
      threads?: Array<{ saturated: boolean }>
      dispatch_lag_p99_ms: number
    }
    expect(health.threads).toHaveLength(2)
    expect(one.file.client_health).not.toHaveProperty('threads')
    // The result says how the client sent: the thread count, and the transport `auto` chose.
    expect(health).toMatchObject({ client_threads: 2, http_transport: 'lean' })
    expect(one.file.client_health).toMatchObject({ client_threads: 1, http_transport: 'lean' })
  })

  it('the prepare stage starts the threads, so their start-up is not part of the timed run', async () => {
    const config = configFrom(smallRunFlags(sim.url, ['--num-prompts', '4', '--client-threads', '2']))
    const lines: string[] = []
    const plan = await prepareRun(config, { log: (line) => lines.push(line) })
    try {
      if (plan.kind !== 'requests') throw new Error(`expected a run of requests, got ${plan.kind}`)
      expect(lines).toContain('Starting main benchmark run...')
      expect(plan.threads?.count).toBe(2)
      // Ready before the measure stage: a request sent through them is answered.
      const output = await plan.threads!.send(plan.requests[0]!.request, new AbortController().signal)
      expect(output).toMatchObject({ success: true, error: '' })
    } finally {
      await plan.close()
    }
  })

  it('the warm-ups go through the threads and open the connections the timed run uses', async () => {
    // A proxy in front of the simulator counts the connections that carry generation requests.
    let generationConnections = 0
    const proxy = createServer((socket) => {
      const upstream = connect(sim.port, '127.0.0.1')
      socket.once('data', (chunk: Buffer) => {
        if (chunk.toString('latin1', 0, 21) === 'POST /v1/completions ') generationConnections++
      })
      socket.pipe(upstream).pipe(socket)
      socket.on('error', () => upstream.destroy())
      upstream.on('error', () => socket.destroy())
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = proxy.address() as AddressInfo
      const config = configFrom(
        smallRunFlags(`http://127.0.0.1:${port}`, [
          '--num-prompts',
          '24',
          '--num-warmups',
          '8',
          '--client-threads',
          '2',
        ]),
      )
      const { outcome } = await runAndWrite(config, await mkdtemp(join(dir, 'warm-')))
      expect(outcome.records.filter((r) => r.success)).toHaveLength(24)
      // --max-concurrency 4 over two threads: two sockets each. Warm-ups sent from this thread
      // would open four of their own, and the threads four more for the timed run.
      expect(generationConnections).toBeGreaterThan(0)
      expect(generationConnections).toBeLessThanOrEqual(4)
    } finally {
      proxy.close()
    }
  })

  it('auto runs and a thread count is checked', async () => {
    const auto = await run('auto', ['--num-prompts', '4', '--http-transport', 'undici'])
    expect(auto.file.completed).toBe(4)
    // Four requests at concurrency 4 are a light load: one thread on any machine.
    expect(auto.file.client_health).toMatchObject({ client_threads: 1, http_transport: 'undici' })
    expect(() => configFrom(smallRunFlags(sim.url, ['--client-threads', '0']))).toThrow(
      /--client-threads must be an integer from 1 to 64, or auto \(got "0"\)/,
    )
  })
})
