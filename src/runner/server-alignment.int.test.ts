import type { ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHttpServer, startRecordingProxy, type TestServer } from '../../test/server-helpers.ts'
import type { BenchConfig } from '../config/bench-config.ts'
import { defaultBenchConfig } from '../config/defaults.ts'
import { type SimServer, startSimulator } from '../sim/server.ts'
import { runBenchmark } from './run-benchmark.ts'
import { alignPromptsToServerTokenizer } from './server-alignment.ts'

// The simulator counts and serves /tokenize and /detokenize with r50k_base (GPT-2's); the client
// builds its random prompts with cl100k_base, so the two disagree as a real model and
// `--tokenizer cl100k_base` would.
let sim: SimServer
let proxy: TestServer & { calls: { path: string; body: string }[] }

beforeAll(async () => {
  sim = await startSimulator({ ttftMs: 1, itlMs: 1, tokenizer: 'r50k_base' })
  proxy = await startRecordingProxy(sim.url)
})
afterAll(async () => {
  await proxy.close()
  await sim.close()
})

function config(tokenizer: string, numPrompts: number): BenchConfig {
  const c = defaultBenchConfig()
  c.endpoint = { ...c.endpoint, baseUrl: proxy.url, model: 'sim-model' }
  c.tokenizer.id = tokenizer
  c.dataset.inputLen = 40
  c.dataset.outputLen = 2
  c.numPrompts = numPrompts
  return c
}

describe('fitting random prompts to the server tokenizer', () => {
  it('probes /tokenize, re-tokenises every prompt, cuts through /detokenize; the server then counts prompt_len', async () => {
    proxy.calls.length = 0
    const lines: string[] = []
    const { records } = await runBenchmark(config('cl100k_base', 6), { log: (line) => lines.push(line) })
    const mismatch = lines.find((line) => line.startsWith('WARNING: tokenizer mismatch'))
    expect(mismatch).toMatch(
      /^WARNING: tokenizer mismatch \(server=\d+, expected=40\), re-aligning prompts\.$/,
    )
    const paths = proxy.calls.map((call) => call.path)
    // The probe, one /tokenize per prompt, then per prompt the server counted longer a /detokenize
    // of its first 40 server tokens and a /tokenize of that text (again if it re-encodes otherwise).
    const tokenizeCalls = paths.filter((p) => p === '/tokenize').length
    expect(tokenizeCalls).toBeGreaterThanOrEqual(1 + 6)
    const detokenized = proxy.calls.filter((call) => call.path === '/detokenize')
    expect(detokenized.length).toBeGreaterThan(0)
    expect(tokenizeCalls).toBe(1 + 6 + detokenized.length)
    const cuts = detokenized.map((call) => JSON.parse(call.body) as { model: string; tokens: number[] })
    expect(cuts.every((body) => body.model === 'sim-model')).toBe(true)
    expect(cuts.filter((body) => body.tokens.length === 40).length).toBeGreaterThanOrEqual(1)
    const probe = JSON.parse(proxy.calls.find((c) => c.path === '/tokenize')!.body) as Record<string, unknown>
    expect(probe).toMatchObject({ model: 'sim-model', add_special_tokens: false })
    // Alignment happens before anything is benchmarked.
    expect(paths.indexOf('/v1/completions')).toBeGreaterThan(paths.lastIndexOf('/detokenize'))
    // usage.prompt_tokens: the server's own count of each prompt sent.
    expect(records).toHaveLength(6)
    expect(records.every((r) => r.success)).toBe(true)
    // A cut text can re-encode a token short at its end whatever the cut point (a merge): at most 40.
    const lens = records.map((r) => r.promptLen)
    expect(lens.every((len) => len <= 40 && len >= 38)).toBe(true)
    expect(lens.filter((len) => len === 40).length).toBeGreaterThanOrEqual(4)
  })

  it('sends nothing more when the server agrees', async () => {
    proxy.calls.length = 0
    const lines: string[] = []
    const { records } = await runBenchmark(config('r50k_base', 3), { log: (line) => lines.push(line) })
    expect(proxy.calls.map((c) => c.path).filter((p) => p.endsWith('tokenize'))).toEqual(['/tokenize'])
    expect(lines.some((line) => line.startsWith('WARNING'))).toBe(false)
    expect(records.map((r) => r.promptLen)).toEqual([40, 40, 40])
  })

  it("gives each prompt the server's count: cut to it when longer, the shorter count otherwise", async () => {
    const long = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho'
    const samples = [
      { prompt: long, promptLen: 10, expectedOutputLen: 1 },
      { prompt: 'one two', promptLen: 5, expectedOutputLen: 1 },
    ]
    const out = await alignPromptsToServerTokenizer(samples, {
      baseUrl: sim.url,
      model: 'm',
      headers: {},
      log: () => {},
    })
    expect(out.map((s) => s.promptLen)).toEqual([10, 2])
    expect(long.startsWith(out[0]!.prompt)).toBe(true)
    const counted = await fetch(`${sim.url}/tokenize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: out[0]!.prompt }),
    })
    expect(((await counted.json()) as { count: number }).count).toBe(10)
    expect(out[1]).toEqual({ ...samples[1], promptLen: 2 })
  })

  it.each([
    [
      'is not served',
      (res: ServerResponse) => res.writeHead(404).end(),
      'POST /tokenize answered 404 without a content type',
    ],
    // Headers, then a body that never ends: waiting for it would hang the run before it starts.
    [
      'answers an endless event stream',
      (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders(),
      'POST /tokenize answered 200 text/event-stream',
    ],
  ])('warns and keeps the prompts when /tokenize %s', async (_what, answer, why) => {
    const bare: TestServer = await startHttpServer((_req, res) => answer(res))
    try {
      const lines: string[] = []
      const samples = [{ prompt: 'a b c', promptLen: 3, expectedOutputLen: 1 }]
      const out = await alignPromptsToServerTokenizer(samples, {
        baseUrl: bare.url,
        model: 'm',
        headers: {},
        log: (line) => lines.push(line),
      })
      expect(out).toBe(samples)
      expect(lines).toEqual(['WARNING: /tokenize unavailable, skipping alignment.', `servebench: ${why}`])
    } finally {
      await bare.close()
    }
  })
})
