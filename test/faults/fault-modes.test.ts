import { describe, expect } from 'vitest'
import { test } from '../helpers.ts'
import {
  configFrom,
  expectHealthyTimings,
  FIXED_TTFT_S,
  runAndWrite,
  smallRunFlags,
} from './fault-helpers.ts'

// 20 requests, concurrency 4; each fault fires on every 4th request the simulator receives (5 of 20).
const SENT = 20
const FAULTED = 5

describe('the client under each simulator fault', () => {
  test.for([
    ['http500', /^HTTP 500 Internal Server Error: .*servebench fault http500/],
    ['http429:retry-after=0', /^HTTP 429 Too Many Requests: .*servebench fault http429/],
    ['http503', /^HTTP 503 Service Unavailable: .*servebench fault http503: the model is loading/],
  ] as const)(
    '%s: counted as failed with the status and the body, the rest unaffected',
    async ([fault, error], { sim, tmpDir }) => {
      sim.setFaults([`${fault}${fault.includes(':') ? ',' : ':'}every=4`])
      const { file } = await runAndWrite(configFrom(smallRunFlags(sim.url)), tmpDir)
      expect(file.completed + file.failed).toBe(SENT)
      expect(file.failed).toBe(FAULTED)
      const errors = file.errors.filter((e) => e !== '')
      for (const e of errors) expect(e).toMatch(error)
      expectHealthyTimings(file, SENT - FAULTED)
    },
  )

  test('reset: a connection reset mid-stream fails the request and keeps its partial timings', async ({
    sim,
    tmpDir,
  }) => {
    sim.setFaults(['reset:every=4,after=3'])
    const { file } = await runAndWrite(configFrom(smallRunFlags(sim.url)), tmpDir)
    expect(file.completed + file.failed).toBe(SENT)
    expect(file.failed).toBe(FAULTED)
    file.errors.forEach((e, i) => {
      if (e === '') return
      expect(e).toMatch(/^Stream error: .*(other side closed|ECONNRESET|socket)/i)
      // The events written before the reset were timed.
      expect(file.ttfts[i]!).toBeGreaterThanOrEqual(FIXED_TTFT_S)
      expect(file.generated_texts[i]!.length).toBeGreaterThan(0)
    })
    expectHealthyTimings(file, SENT - FAULTED)
  })

  test('stall: a stream silent longer than --read-timeout fails with the read timeout', async ({
    sim,
    tmpDir,
  }) => {
    sim.setFaults(['stall:every=4,after=2,ms=1500'])
    const { file } = await runAndWrite(configFrom(smallRunFlags(sim.url, ['--read-timeout', '0.4'])), tmpDir)
    expect(file.completed + file.failed).toBe(SENT)
    expect(file.failed).toBe(FAULTED)
    for (const e of file.errors.filter((x) => x !== '')) {
      expect(e).toBe('Stream error: read timed out after 0.4 s without data')
    }
    expectHealthyTimings(file, SENT - FAULTED)
  })

  test('stall without a read timeout: the request succeeds and the gap shows in its ITL', async ({
    sim,
    tmpDir,
  }) => {
    sim.setFaults(['stall:every=4,after=2,ms=300'])
    const { file } = await runAndWrite(configFrom(smallRunFlags(sim.url)), tmpDir)
    expect(file.completed).toBe(SENT)
    // A little under 300 ms: the event before the stall may itself leave a moment late.
    const stalled = file.itls.filter((itl) => Math.max(...itl) >= 0.28)
    expect(stalled).toHaveLength(FAULTED)
    expectHealthyTimings(file, SENT)
  })

  test('malformed-json: the bad event is skipped (Rust behaviour) and every request completes whole', async ({
    sim,
    tmpDir,
  }) => {
    sim.setFaults(['malformed-json:every=4,after=1'])
    const { file } = await runAndWrite(configFrom(smallRunFlags(sim.url)), tmpDir)
    expect(file.completed + file.failed).toBe(SENT)
    expect(file.completed).toBe(SENT)
    expect(file.total_output_tokens).toBe(SENT * 8)
    for (const text of file.generated_texts) expect(text.split(' ').length - 1).toBe(8)
    expectHealthyTimings(file, SENT)
  })

  test('no-done: a stream that ends without [DONE] still completes', async ({ sim, tmpDir }) => {
    sim.setFaults(['no-done:every=4'])
    const { file } = await runAndWrite(configFrom(smallRunFlags(sim.url)), tmpDir)
    expect(file.completed).toBe(SENT)
    expect(file.total_output_tokens).toBe(SENT * 8)
    expectHealthyTimings(file, SENT)
  })

  test('no-done with after: a stream cut cleanly after 3 events completes with what it got', async ({
    sim,
    tmpDir,
  }) => {
    sim.setFaults(['no-done:every=4,after=3'])
    const { file } = await runAndWrite(configFrom(smallRunFlags(sim.url)), tmpDir)
    expect(file.completed + file.failed).toBe(SENT)
    const short = file.output_lens.filter((n) => n === 3)
    expect(short).toHaveLength(FAULTED)
    expectHealthyTimings(file, SENT)
  })

  test('byte-split: one write per byte reassembles to the same text', async ({ sim, tmpDir }) => {
    sim.setFaults(['byte-split:every=4'])
    const { file } = await runAndWrite(configFrom(smallRunFlags(sim.url)), tmpDir)
    expect(file.completed).toBe(SENT)
    expect(file.total_output_tokens).toBe(SENT * 8)
    for (const text of file.generated_texts) expect(text.split(' ').length - 1).toBe(8)
    expectHealthyTimings(file, SENT - FAULTED)
  })

  test('utf8-split: a character split across writes arrives whole', async ({ sim, tmpDir }) => {
    sim.setFaults(['utf8-split:every=4'])
    const { file } = await runAndWrite(configFrom(smallRunFlags(sim.url)), tmpDir)
    expect(file.completed).toBe(SENT)
    const withEuro = file.generated_texts.filter((t) => t.includes('€'))
    expect(withEuro).toHaveLength(FAULTED)
    for (const text of withEuro) expect([...text].filter((c) => c === '€')).toHaveLength(8)
    for (const text of file.generated_texts) expect(text).not.toContain('\uFFFD')
    expectHealthyTimings(file, SENT - FAULTED)
  })

  test('slow-headers: the delay shows in TTFT of the faulted requests only', async ({ sim, tmpDir }) => {
    sim.setFaults(['slow-headers:every=4,ms=300'])
    const { file } = await runAndWrite(configFrom(smallRunFlags(sim.url)), tmpDir)
    expect(file.completed).toBe(SENT)
    // The engine's clock started when the request was read, so the first token follows the headers at once.
    expect(file.ttfts.filter((t) => t >= 0.3)).toHaveLength(FAULTED)
    expectHealthyTimings(file, SENT)
  })

  test('slow-headers beyond --read-timeout fails waiting for the headers', async ({ sim, tmpDir }) => {
    sim.setFaults(['slow-headers:every=4,ms=1500'])
    const { file } = await runAndWrite(configFrom(smallRunFlags(sim.url, ['--read-timeout', '0.4'])), tmpDir)
    expect(file.completed + file.failed).toBe(SENT)
    expect(file.failed).toBe(FAULTED)
    for (const e of file.errors.filter((x) => x !== '')) {
      expect(e).toBe('Request failed: read timed out after 0.4 s waiting for response headers')
    }
  })

  test('a random fault mix with timeouts: the run finishes and accounts for every request', async ({
    sim,
    tmpDir,
  }) => {
    sim.setFaults([
      'http500:p=0.1',
      'reset:p=0.1,after=2',
      'stall:p=0.1,ms=2000',
      'byte-split:p=0.2',
      'slow-headers:p=0.1,ms=1500',
    ])
    const config = configFrom(
      smallRunFlags(sim.url, ['--num-prompts', '60', '--read-timeout', '0.5', '--request-timeout', '5']),
    )
    const { file } = await runAndWrite(config, tmpDir)
    expect(file.completed + file.failed).toBe(60)
    expect(file.failed).toBeGreaterThan(0)
    expect(file.completed).toBeGreaterThan(0)
  })
})
