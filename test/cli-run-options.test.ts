import { request } from 'undici'
import { describe, expect } from 'vitest'
import { validateResultFile } from '../src/report/result/schema/index.ts'
import { validateModeFile } from '../src/report/result/schema/modes.ts'
import { startSimulator } from '../src/sim/server.ts'
import { readJsonFiles, runCli, test } from './helpers.ts'
import { startHttpServer, startRecordingProxy } from './server-helpers.ts'

const SMALL = [
  '--tokenizer',
  'cl100k_base',
  '--random-input-len',
  '32',
  '--random-output-len',
  '8',
  '--disable-tqdm',
]

const modelsOf = (calls: ReadonlyArray<{ path: string; body: string }>, path: string): string[] =>
  calls
    .filter((c) => c.path === path)
    .map((c) => JSON.parse(c.body) as { model: string; messages?: unknown[] })
    .map((b) => b.model)

describe('--lora-modules', () => {
  test('round-robin names the adapters in request order; the simulator counts each', async ({ sim }) => {
    const proxy = await startRecordingProxy(sim.url)
    try {
      const run = await runCli([
        'serve',
        '--base-url',
        proxy.url,
        ...SMALL,
        '--num-prompts',
        '7',
        '--max-concurrency',
        '1',
        '--lora-modules',
        'a',
        'b',
        'c',
        '--lora-assignment',
        'round-robin',
      ])
      expect(run.code).toBe(0)
      // No ready check by default: the 7 requests in order.
      expect(modelsOf(proxy.calls, '/v1/completions')).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a'])
      expect(sim.stats().requestsByModel).toMatchObject({ a: 3, b: 2, c: 2 })
    } finally {
      await proxy.close()
    }
  })

  test('multi-turn keeps one adapter per conversation; pooling backends refuse adapters', async ({ sim }) => {
    const proxy = await startRecordingProxy(sim.url)
    try {
      const run = await runCli([
        'serve',
        '--base-url',
        proxy.url,
        '--backend',
        'openai-chat',
        ...SMALL,
        '--multi-turn',
        '--multi-turn-num-turns',
        '3',
        '--num-prompts',
        '4',
        '--lora-modules',
        'x',
        'y',
        '--seed',
        '5',
      ])
      expect(run.code).toBe(0)
      const turns = proxy.calls
        .filter((c) => c.path === '/v1/chat/completions')
        .map((c) => ({
          session: c.headers['x-session-id'],
          model: (JSON.parse(c.body) as { model: string }).model,
        }))
      expect(turns).toHaveLength(12)
      const bySession = new Map<unknown, Set<string>>()
      for (const t of turns) bySession.set(t.session, (bySession.get(t.session) ?? new Set()).add(t.model))
      expect(bySession.size).toBe(4)
      for (const models of bySession.values()) expect(models.size).toBe(1)
    } finally {
      await proxy.close()
    }
    const pooling = await runCli(['serve', '--backend', 'vllm-pooling', '--lora-modules', 'a'])
    expect(pooling.code).toBe(2)
    expect(pooling.stderr).toContain(
      '--lora-modules cannot be used with the vllm-pooling backend: pooling backends take no LoRA adapter',
    )
  })
})

describe('--max-model-len', () => {
  test('drops the requests that do not fit, and fails when none does', async ({ sim, tmpDir }) => {
    const base = ['serve', '--base-url', sim.url, '--tokenizer', 'cl100k_base', '--disable-tqdm']
    const lengths = ['--random-input-len', '40', '--random-output-len', '10', '--random-range-ratio', '0.5']
    const run = await runCli([...base, ...lengths, '--num-prompts', '30', '--max-model-len', '50'])
    expect(run.code).toBe(0)
    const filtered = /Filtered out (\d+) requests longer than --max-model-len 50\./.exec(run.stdout)
    expect(Number(filtered?.[1])).toBeGreaterThan(0)
    const completed = Number(/Successful requests: +(\d+)/.exec(run.stdout)?.[1])
    expect(completed).toBe(30 - Number(filtered?.[1]))
    const none = await runCli([...base, ...lengths, '--num-prompts', '5', '--max-model-len', '10'])
    expect(none.code).not.toBe(0)
    expect(none.stderr).toContain(
      '--max-model-len 10: every one of the 5 requests needs more (prompt + expected output); raise it or shorten the dataset',
    )
    // Multi-turn: with history, the later turns of these conversations no longer fit.
    const multiTurn = await runCli([
      ...base,
      '--backend',
      'openai-chat',
      '--random-input-len',
      '20',
      '--random-output-len',
      '5',
      '--multi-turn',
      '--multi-turn-num-turns',
      '4',
      '--num-prompts',
      '3',
      '--max-model-len',
      '55',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(multiTurn.code).toBe(0)
    expect(multiTurn.stdout).toContain(
      'Filtered out 6 turns and 0 conversations longer than --max-model-len 55.',
    )
    const result = Object.values(await readJsonFiles(tmpDir))[0]!
    expect(validateModeFile(result)).toEqual({ valid: true })
    expect(result).toMatchObject({ max_model_len: 55, completed: 6 })
  })
})

describe('--reset-prefix-cache, --profile-batch-threshold and --sweep-summary-percentiles', () => {
  test('resets the prefix cache before each sweep point and adds the summary percentile columns', async ({
    sim,
    tmpDir,
  }) => {
    const proxy = await startRecordingProxy(sim.url)
    try {
      const run = await runCli([
        'serve',
        '--base-url',
        proxy.url,
        ...SMALL,
        '--num-prompts',
        '6',
        '--sweep-max-concurrency',
        '1,3',
        '--reset-prefix-cache',
        '--sweep-summary-percentiles',
        '95,75',
        '--save-result',
        '--result-dir',
        tmpDir,
      ])
      expect(run.code).toBe(0)
      const paths = proxy.calls.map((c) => c.path)
      const resets = paths.flatMap((p, i) => (p === '/reset_prefix_cache' ? [i] : []))
      expect(resets).toHaveLength(2)
      // Each reset comes before its point's requests: none between the first reset's point and the second reset.
      expect(paths.slice(0, resets[0]).filter((p) => p === '/v1/completions')).toHaveLength(0)
      expect(paths.slice(resets[0], resets[1]).filter((p) => p === '/v1/completions').length).toBeGreaterThan(
        5,
      )
      expect(run.stdout).toMatch(/P95 TTFT\(ms\) +P95 TPOT\(ms\) +P75 TTFT\(ms\) +P75 TPOT\(ms\)$/m)
      const points = Object.entries(await readJsonFiles(tmpDir)).filter(([n]) => !n.includes('-sweep-'))
      for (const [, point] of points) {
        expect(validateResultFile(point)).toEqual({ valid: true })
        expect(point).toHaveProperty('p95_ttft_ms')
        expect(point).toHaveProperty('p75_ttft_ms')
      }
    } finally {
      await proxy.close()
    }
  })

  test('a server that refuses /reset_prefix_cache stops the run', async () => {
    const server = await startHttpServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end('{"detail":"Not Found"}')
    })
    try {
      const run = await runCli([
        'serve',
        '--base-url',
        server.url,
        ...SMALL,
        '--model',
        'm',
        '--reset-prefix-cache',
      ])
      expect(run.code).toBe(3)
      expect(run.stderr).toContain(
        `--reset-prefix-cache: POST ${server.url}/reset_prefix_cache answered HTTP 404: {"detail":"Not Found"} (vLLM serves it only with VLLM_SERVER_DEV_MODE=1)`,
      )
    } finally {
      await server.close()
    }
  })

  test('the threshold profiler starts once enough requests run, and stops after --profile-duration', async ({
    sim,
  }) => {
    const proxy = await startRecordingProxy(sim.url)
    try {
      const run = await runCli([
        'serve',
        '--base-url',
        proxy.url,
        ...SMALL,
        '--random-output-len',
        '120',
        '--num-prompts',
        '12',
        '--max-concurrency',
        '4',
        '--profile',
        '--profile-batch-threshold',
        '3',
        '--profile-duration',
        '0.2',
      ])
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(
        /vllm:num_requests_running reached [34] \(threshold 3\); starting profiler\.\.\./,
      )
      const paths = proxy.calls.map((c) => c.path)
      const start = paths.indexOf('/start_profile')
      const stop = paths.indexOf('/stop_profile')
      const firstRequest = paths.indexOf('/v1/completions', paths.indexOf('/v1/completions') + 1)
      expect(start).toBeGreaterThan(firstRequest)
      expect(stop).toBeGreaterThan(start)
      // 0.2 s of a ~1.2 s run: requests still went out after the profile stopped.
      expect(paths.slice(stop).filter((p) => p === '/v1/completions').length).toBeGreaterThan(0)
      const never = await runCli([
        'serve',
        '--base-url',
        proxy.url,
        ...SMALL,
        '--num-prompts',
        '2',
        '--max-concurrency',
        '1',
        '--profile',
        '--profile-batch-threshold',
        '50',
      ])
      expect(never.code).toBe(0)
      expect(never.stdout).toMatch(
        /^servebench: WARNING: --profile-batch-threshold 50 was never reached \(at most [01] requests running\); no profile was taken$/m,
      )
    } finally {
      await proxy.close()
    }
  })
})

describe('the simulator answers /reset_prefix_cache', () => {
  test('a prompt cached before the reset is a miss after it', async () => {
    const sim = await startSimulator({ decodeBaseMs: 1, decodeMsPerSeq: 0, prefillMsPerToken: 0.001 })
    try {
      const send = async (): Promise<void> => {
        const res = await request(`${sim.url}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'm',
            prompt: Array.from({ length: 64 }, (_, i) => 1000 + i),
            max_tokens: 2,
          }),
        })
        expect(res.statusCode).toBe(200)
        await res.body.text()
      }
      const hits = async (): Promise<number> => {
        const text = await (await request(`${sim.url}/metrics`)).body.text()
        return Number(/^vllm:prefix_cache_hits_total\{[^}]*\} (\S+)$/m.exec(text)?.[1])
      }
      await send()
      await send()
      const cached = await hits()
      expect(cached).toBeGreaterThan(0)
      const reset = await request(`${sim.url}/reset_prefix_cache`, { method: 'POST' })
      expect(reset.statusCode).toBe(200)
      await reset.body.text()
      await send()
      expect(await hits()).toBe(cached)
      await send()
      expect(await hits()).toBeGreaterThan(cached)
    } finally {
      await sim.close()
    }
  })
})
