import { describe, expect } from 'vitest'
import { runBenchmark } from '../../src/runner/run-benchmark.ts'
import { test } from '../helpers.ts'
import { configFrom, FIXED_TTFT_S, smallRunFlags } from './fault-helpers.ts'

const ONE = ['--num-prompts', '1', '--max-concurrency', '1']

describe('--max-retries', () => {
  test('two 503s then a success: completed with --max-retries 3, failed without it', async ({ sim }) => {
    sim.setFaults(['http503:nth=1', 'http503:nth=2'])
    const retried = await runBenchmark(configFrom(smallRunFlags(sim.url, [...ONE, '--max-retries', '3'])))
    expect(retried.result).toMatchObject({ completed: 1, failed: 0 })
    expect(retried.retries).toEqual({ retries: 2, retriedRequests: 1, recovered: 1 })
    // Each retry stamps a fresh start: the TTFT is the last attempt's, the waits show as queue time.
    const record = retried.records[0]!
    expect(record.ttftS).toBeGreaterThanOrEqual(FIXED_TTFT_S)
    // A TTFT counted from the first attempt would hold the waits, which are at least 0.75 s.
    expect(record.ttftS).toBeLessThan(record.queueTimeS)
    expect(record.queueTimeS).toBeGreaterThanOrEqual(0.25 + 0.5)

    sim.setFaults(['http503:nth=1', 'http503:nth=2'])
    const plain = await runBenchmark(configFrom(smallRunFlags(sim.url, ONE)))
    expect(plain.result).toMatchObject({ completed: 0, failed: 1 })
    expect(plain.retries).toEqual({ retries: 0, retriedRequests: 0, recovered: 0 })
    expect(plain.records[0]!.error).toMatch(/^HTTP 503 Service Unavailable/)
  })

  test('gives up after N retries and keeps the last error', async ({ sim }) => {
    sim.setFaults(['http500'])
    const outcome = await runBenchmark(configFrom(smallRunFlags(sim.url, [...ONE, '--max-retries', '2'])))
    expect(outcome.result).toMatchObject({ completed: 0, failed: 1 })
    expect(outcome.retries).toEqual({ retries: 2, retriedRequests: 1, recovered: 0 })
    expect(outcome.records[0]!.error).toMatch(/^HTTP 500 Internal Server Error/)
  })

  test('honours Retry-After of a 429', async ({ sim }) => {
    sim.setFaults(['http429:nth=1,retry-after=1'])
    const outcome = await runBenchmark(configFrom(smallRunFlags(sim.url, [...ONE, '--max-retries', '1'])))
    expect(outcome.result).toMatchObject({ completed: 1 })
    expect(outcome.records[0]!.queueTimeS).toBeGreaterThanOrEqual(1)
  })

  test('never retries once the body has started: a reset mid-stream stays failed', async ({ sim }) => {
    sim.setFaults(['reset:nth=1,after=2'])
    const outcome = await runBenchmark(configFrom(smallRunFlags(sim.url, [...ONE, '--max-retries', '3'])))
    expect(outcome.result).toMatchObject({ completed: 0, failed: 1 })
    expect(outcome.retries.retries).toBe(0)
  })

  test('never retries a timed-out request', async ({ sim }) => {
    sim.setFaults(['slow-headers:nth=1,ms=800'])
    const outcome = await runBenchmark(
      configFrom(smallRunFlags(sim.url, [...ONE, '--max-retries', '3', '--request-timeout', '0.3'])),
    )
    expect(outcome.result).toMatchObject({ completed: 0, failed: 1 })
    expect(outcome.records[0]!.error).toBe('Request failed: request timed out after 0.3 s')
    expect(outcome.retries.retries).toBe(0)
  })

  test('retries a refused connection, then counts it failed', async () => {
    const outcome = await runBenchmark(
      configFrom(smallRunFlags('http://127.0.0.1:9', [...ONE, '--max-retries', '1'])),
    )
    expect(outcome.result).toMatchObject({ completed: 0, failed: 1 })
    expect(outcome.retries.retries).toBe(1)
    expect(outcome.records[0]!.error).toMatch(/^Request failed: .*ECONNREFUSED/)
  })
})

describe('the fault control endpoint', () => {
  test('POST sets, GET reads, DELETE clears; a bad list is a 400 naming each entry', async ({ sim }) => {
    const url = `${sim.url}/servebench/faults`
    const set = await fetch(url, {
      method: 'POST',
      body: JSON.stringify([{ kind: 'http500', nth: 1 }, 'stall:every=2,ms=50']),
    })
    expect(set.status).toBe(200)
    expect(await set.json()).toEqual([
      { kind: 'http500', nth: 1 },
      { kind: 'stall', every: 2, after: 1, ms: 50 },
    ])
    expect(await (await fetch(url)).json()).toEqual(sim.faults())
    const first = await fetch(`${sim.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'hi', max_tokens: 2 }),
    })
    expect(first.status).toBe(500)

    const bad = await fetch(url, { method: 'POST', body: JSON.stringify([{ kind: 'boom' }, 'reset:p=7']) })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { error: { message: string } }).error.message).toBe(
      'Invalid configuration (2 issues):\n' +
        '  - faults[0] has unknown fault kind "boom"; valid: http500, http429, http503, reset, stall, malformed-json, no-done, byte-split, utf8-split, slow-headers\n' +
        '  - faults[1] p must be a number between 0 and 1 (got 7) in "reset:p=7"',
    )
    expect(sim.faults()).toHaveLength(2)

    expect((await fetch(url, { method: 'DELETE' })).status).toBe(204)
    expect(sim.faults()).toEqual([])
  })
})
