import { readdirSync, readFileSync } from 'node:fs'
import { Agent, request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SimServer, startSimulator } from './server.ts'

/** The engine processes this process has started and that are still running (Linux: from /proc). */
function engineProcesses(): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // The parent pid is the second field after the command, which is in parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8')
      if (ppid === process.pid && cmdline.includes('engine-process')) pids.push(Number(name))
    } catch {
      // The process ended while being read.
    }
  }
  return pids
}

/** The samples of `name` in a /metrics text, by their `engine` label. */
function byEngine(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue
    const engine = /engine="(\d+)"/.exec(line)?.[1] ?? '?'
    out.set(engine, (out.get(engine) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)))
  }
  return out
}

describe('a data-parallel simulator', () => {
  let sim: SimServer
  // One connection per request, so the primary deals them over both engines.
  const agent = new Agent({ connections: 8 })
  const complete = (prompt: string) =>
    request(`${sim.url}/v1/completions`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, max_tokens: 4, stream: true, ignore_eos: true }),
    }).then(async (res) => ({ status: res.statusCode, body: await res.body.text() }))

  beforeAll(async () => {
    sim = await startSimulator({ ttftMs: 30, itlMs: 5, dataParallelSize: 2, recordTimings: true })
  })
  afterAll(async () => {
    await agent.close()
    await sim.close()
  })

  it('serves from two engine processes behind one port, each labelled in /metrics', async () => {
    if (process.platform === 'linux') expect(engineProcesses()).toHaveLength(2)
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => complete(`prompt ${i}`)))
    for (const answer of answers) {
      expect(answer.status).toBe(200)
      expect(answer.body.endsWith('data: [DONE]\n\n')).toBe(true)
    }
    const text = await (await request(`${sim.url}/metrics`)).body.text()
    // One family, every engine's samples under it, as vLLM's registry writes its DP engines.
    expect(text.match(/^# HELP vllm:request_success_total /gm)).toHaveLength(1)
    const finished = byEngine(text, 'vllm:request_success_total')
    expect([...finished.keys()].sort()).toEqual(['0', '1'])
    expect(finished.get('0')! + finished.get('1')!).toBe(8)
    expect(finished.get('0')).toBeGreaterThan(0)
    expect(finished.get('1')).toBeGreaterThan(0)
    expect(byEngine(text, 'vllm:generation_tokens_total').size).toBe(2)
    expect(text).toMatch(
      /^vllm:time_to_first_token_seconds_bucket\{engine="1",le="\+Inf",model_name="servebench\/sim-model"\} \d+$/m,
    )
    // stats() sums the engines.
    expect((await sim.collectStats()).requestsFinished).toBe(8)
    expect((await sim.collectStats()).generationTokensTotal).toBe(32)
    await expect.poll(() => sim.stats().requestsFinished).toBe(8)
  })

  it('gives every engine’s timing records, and says how when asked for one engine’s', async () => {
    await request(`${sim.url}/servebench/timings`, { method: 'DELETE' }).then((r) => r.body.dump())
    await Promise.all([complete('a'), complete('b'), complete('c')])
    const records = (await (await request(`${sim.url}/servebench/timings`)).body.json()) as unknown[]
    expect(records).toHaveLength(3)
    expect(await sim.collectTimings()).toHaveLength(3)
    expect(() => sim.timings()).toThrow(
      'timings() reads one engine; this simulator has 2 (dataParallelSize): use collectTimings() or GET /servebench/timings',
    )
  })

  it('sets faults on every engine, each counting its own requests', async () => {
    const set = await request(`${sim.url}/servebench/faults`, {
      method: 'POST',
      body: JSON.stringify(['http500:nth=1']),
    })
    expect(set.statusCode).toBe(200)
    await set.body.dump()
    // Fresh connections, dealt one to each engine: the first request of each fails.
    const fresh = new Agent({ connections: 2 })
    try {
      const send = () =>
        request(`${sim.url}/v1/completions`, {
          method: 'POST',
          dispatcher: fresh,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: 'x', max_tokens: 2 }),
        }).then(async (res) => {
          await res.body.dump()
          return res.statusCode
        })
      expect((await Promise.all([send(), send()])).sort()).toEqual([500, 500])
    } finally {
      await fresh.close()
      sim.setFaults([])
    }
    expect(sim.faults()).toEqual([])
    const reset = await request(`${sim.url}/reset_prefix_cache`, { method: 'POST' })
    expect(reset.statusCode).toBe(200)
    await reset.body.dump()
  })
})

describe('closing a data-parallel simulator', () => {
  it('stops its engine processes', async () => {
    const sim = await startSimulator({ ttftMs: 1, itlMs: 1, dataParallelSize: 3 })
    if (process.platform === 'linux') expect(engineProcesses()).toHaveLength(3)
    await sim.close()
    if (process.platform === 'linux') expect(engineProcesses()).toHaveLength(0)
  })
})
