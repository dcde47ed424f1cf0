import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { validateResultFile } from '../src/report/result/schema/index.ts'
import { validateModeFile } from '../src/report/result/schema/modes.ts'
import { ROOT, readJsonFiles, runCli, test } from './helpers.ts'
import { type ProxyCall, startRecordingProxy } from './server-helpers.ts'

const SMALL = [
  '--tokenizer',
  'cl100k_base',
  '--random-input-len',
  '32',
  '--random-output-len',
  '16',
  '--disable-tqdm',
]

describe('speculative decoding, steady state, probe and profile', () => {
  test.override({
    simOptions: { ttftMs: 20, itlMs: 5, specDecodeNumTokens: 3, specDecodeAcceptanceRate: 0.6 },
  })

  test('reports the acceptance rate the simulator drew, a steady-state window, probes and profile calls', async ({
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
        '--random-output-len',
        '40',
        '--num-prompts',
        '24',
        '--max-concurrency',
        '4',
        '--probe-request-rate',
        '50',
        '--profile',
        '--header',
        'X-Bench=1',
        '--save-result',
        '--result-dir',
        tmpDir,
      ])
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      const [result] = Object.values(await readJsonFiles(tmpDir))
      expect(validateResultFile(result)).toEqual({ valid: true })

      // Binomial draws: the reported rate is within 4 standard errors of the configured 0.6.
      const draftTokens = result!.spec_decode_draft_tokens as number
      const rate = (result!.spec_decode_acceptance_rate as number) / 100
      expect(draftTokens).toBeGreaterThan(100)
      expect(Math.abs(rate - 0.6)).toBeLessThan(4 * Math.sqrt((0.6 * 0.4) / draftTokens))
      expect(result!.spec_decode_per_position_acceptance_rates).toHaveLength(3)
      // Several tokens per event: fewer gaps than tokens, so a request's TPOT (its gaps over its
      // tokens) is below the mean gap between events, whatever the machine's load.
      expect(result!.mean_tpot_ms as number).toBeLessThan(result!.mean_itl_ms as number)
      expect(run.stdout).toContain('---------------Speculative Decoding---------------')

      const ss = result!.steady_state as { window: Record<string, number>; request_throughput: number }
      expect(ss.window.target_concurrency).toBe(4)
      expect(ss.window.threshold_abs).toBe(4)
      expect(ss.window.observed_peak).toBe(4)
      expect(ss.window.end_s).toBeGreaterThan(ss.window.start_s!)
      expect(run.stdout).toContain('============ Steady-State Metrics =============')

      expect(result!.probe_completed as number).toBeGreaterThan(0)
      expect(result!.probe_median_e2el_ms as number).toBeGreaterThanOrEqual(20)
      expect(run.stdout).toContain('------------------Probe Requests------------------')

      const paths = proxy.calls.map((c) => c.path)
      const start = paths.indexOf('/start_profile')
      const stop = paths.indexOf('/stop_profile')
      const firstRequest = proxy.calls.findIndex(
        (c) => c.path === '/v1/completions' && !c.body.includes('"Hi"'),
      )
      expect(start).toBeGreaterThanOrEqual(0)
      expect(start).toBeLessThan(firstRequest)
      expect(stop).toBeGreaterThan(proxy.calls.map((c) => c.path).lastIndexOf('/v1/completions') - 1)
      expect(proxy.calls[start]!.headers['x-bench']).toBe('1')
      expect(proxy.calls[stop]!.method).toBe('POST')
    } finally {
      await proxy.close()
    }
  })
})

describe('other single-run keys', () => {
  test('writes rps_change_events for each integer rate passed during a ramp-up', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      ...SMALL,
      '--num-prompts',
      '30',
      '--ramp-up-strategy',
      'linear',
      '--ramp-up-start-rps',
      '20',
      '--ramp-up-end-rps',
      '40',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(0)
    const [result] = Object.values(await readJsonFiles(tmpDir))
    expect(validateResultFile(result)).toEqual({ valid: true })
    const events = result!.rps_change_events as Array<{ rps: number; timestamp: string }>
    expect(events.map((e) => e.rps)).toEqual(Array.from({ length: 21 }, (_, i) => 20 + i))
    expect(events[0]!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/)
    const times = events.map((e) => Date.parse(e.timestamp))
    expect([...times].sort((a, b) => a - b)).toEqual(times)
  })

  test('computes e2el_including_client_queue at a finite rate with a concurrency cap', async ({
    sim,
    tmpDir,
  }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      ...SMALL,
      '--num-prompts',
      '20',
      '--request-rate',
      '200',
      '--max-concurrency',
      '2',
      '--percentile-metrics',
      'e2el,client_queue_time,e2el_including_client_queue',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(0)
    const [result] = Object.values(await readJsonFiles(tmpDir))
    expect(validateResultFile(result)).toEqual({ valid: true })
    // 200 req/s arrivals against 2 slots of ~190 ms each: requests queue on the client.
    expect(result!.mean_client_queue_time_ms as number).toBeGreaterThan(0)
    expect(result!.mean_e2el_including_client_queue_ms as number).toBeCloseTo(
      (result!.mean_e2el_ms as number) + (result!.mean_client_queue_time_ms as number),
      6,
    )
    // No steady state at a finite rate: the key is absent.
    expect(result).not.toHaveProperty('steady_state')
    expect(run.stdout).toContain('--------Queue-inclusive End-to-end Latency--------')
  })
})

describe('sweep and multi-run', () => {
  test('a concurrency sweep writes one file per point, a combined JSON and a summary table', async ({
    sim,
    tmpDir,
  }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      ...SMALL,
      '--sweep-max-concurrency',
      '1,4',
      '--sweep-num-prompts-factor',
      '3',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Sweeping --max-concurrency over 2 values: [1, 4]')
    expect(run.stdout).toMatch(/^-+ Run 2\/2: max_concurrency=4 -+$/m)
    expect(run.stdout).toMatch(/^=+ Sweep Summary =+$/m)
    expect(run.stdout).toMatch(/^concurrency=4 +\d/m)
    expect(run.stdout).toMatch(/^Best throughput: [\d.]+ req\/s at concurrency=4$/m)
    const files = await readJsonFiles(tmpDir)
    const points = Object.entries(files).filter(([name]) => !name.includes('-sweep-'))
    expect(points.map(([name]) => name.match(/concurrency(\d+)/)?.[1]).sort()).toEqual(['1', '4'])
    for (const [, point] of points) expect(validateResultFile(point)).toEqual({ valid: true })
    const combined = Object.entries(files).find(([name]) => name.includes('-sweep-max_concurrency-'))![1]
    expect(validateModeFile(combined)).toEqual({ valid: true })
    const pointResults = combined.points as Array<Record<string, unknown>>
    expect(pointResults.map((p) => [p.max_concurrency, p.num_prompts, p.completed])).toEqual([
      [1, 3, 3],
      [4, 12, 12],
    ])
    // More slots, more throughput: the simulator's fixed timings do not slow down with concurrency.
    expect(pointResults[1]!.request_throughput as number).toBeGreaterThan(
      pointResults[0]!.request_throughput as number,
    )
  })

  test('--num-runs prints each run and the statistics, and writes them as JSON', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      ...SMALL,
      '--num-prompts',
      '8',
      '--max-concurrency',
      '4',
      '--num-runs',
      '3',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(0)
    expect(run.stdout.match(/Serving Benchmark Result/g)).toHaveLength(3)
    expect(run.stdout).toMatch(/^=+ Multi-Run Summary \(3 runs\) =+$/m)
    expect(run.stdout).toMatch(/^completed +8 +0 +8 +8 +0\.0%$/m)
    const [summary] = Object.values(await readJsonFiles(tmpDir))
    expect(validateModeFile(summary)).toEqual({ valid: true })
    const stats = (summary!.metrics as Record<string, { mean: number; min: number; max: number }>)
      .request_throughput!
    const runs = summary!.runs as Array<{ request_throughput: number }>
    expect(runs).toHaveLength(3)
    expect(stats.mean).toBeCloseTo(runs.reduce((s, r) => s + r.request_throughput, 0) / 3, 9)
    expect(stats.min).toBe(Math.min(...runs.map((r) => r.request_throughput)))
  })
})

describe('compare', () => {
  const A = join(ROOT, 'fixtures/results/compare-a.json')
  const B = join(ROOT, 'fixtures/results/compare-b.json')

  test('servebench compare and serve --compare print the same diff without colour off a TTY', async () => {
    const direct = await runCli(['compare', A, B])
    expect(direct.code).toBe(0)
    expect(direct.stdout).toMatch(/^request_throughput +10 +12\.50 +\+2\.50 +\+25\.0% \+$/m)
    expect(direct.stdout).not.toContain('\u001b[')
    const viaServe = await runCli(['serve', '--compare', A, B])
    expect(viaServe.code).toBe(0)
    expect(viaServe.stdout).toBe(direct.stdout)
  })

  test('names a missing file and a wrong argument count', async () => {
    const missing = await runCli(['compare', A, '/nonexistent/b.json'])
    expect(missing.code).toBe(2)
    expect(missing.stderr.trim()).toBe('servebench: /nonexistent/b.json cannot be read (ENOENT)')
    const one = await runCli(['compare', A])
    expect(one.code).toBe(2)
    expect(one.stderr.trim()).toBe(
      'servebench: compare needs two result files A B (got 1); see servebench compare --help',
    )
  })

  test('--fail-on exits 1 when a threshold is crossed and 0 when every one holds', async () => {
    // A → B: p99 TTFT 120 → 150 ms (+25 %), request throughput 10 → 12.5 req/s (+25 %).
    const crossed = await runCli([
      'compare',
      A,
      B,
      '--fail-on',
      'p99_ttft_ms:+10%',
      '--fail-on=request_throughput:-5%',
    ])
    expect(crossed.code).toBe(1)
    expect(crossed.stdout).toContain(
      'fail-on:\n  ✗ p99_ttft_ms:+10%  120 → 150 (+25.0%): crossed\n  ✓ request_throughput:-5%  10 → 12.50 (+25.0%): within\n',
    )
    expect(crossed.stderr).toBe('servebench: 1 of 2 --fail-on thresholds crossed\n')
    const held = await runCli([
      'compare',
      A,
      B,
      '--fail-on',
      'p99_ttft_ms:+30%',
      '--fail-on',
      'mean_ttft_ms:+0',
    ])
    expect(held.code).toBe(0)
    expect(held.stderr).toBe('')
  })

  test('names a malformed --fail-on and a metric that a file lacks, before comparing', async () => {
    const run = await runCli(['compare', A, B, '--fail-on', 'p99_ttft_ms+10%', '--fail-off', 'x'])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      [
        'servebench: Invalid configuration (2 issues):',
        '  - --fail-off is not a servebench compare flag; did you mean --fail-on? valid: --markdown, --fail-on, --help',
        '  - --fail-on must be <metric>:<+|-><change>[%], such as p99_ttft_ms:+10% or request_throughput:-5% (got "p99_ttft_ms+10%")',
        '',
      ].join('\n'),
    )
    const missing = await runCli(['compare', A, B, '--fail-on', 'p99_e2el_ms:+10%'])
    expect(missing.code).toBe(2)
    expect(missing.stdout).toBe('')
    expect(missing.stderr).toBe(
      `servebench: Invalid configuration (2 issues):\n  - --fail-on p99_e2el_ms:+10% names "p99_e2el_ms", which ${A} has no number for\n  - --fail-on p99_e2el_ms:+10% names "p99_e2el_ms", which ${B} has no number for\n`,
    )
  })
})

describe('multi-turn', () => {
  const MT = [
    '--backend',
    'openai-chat',
    '--multi-turn',
    '--multi-turn-num-turns',
    '3',
    '--num-prompts',
    '4',
    '--multi-turn-delay-ms',
    '30',
  ]

  test('sends turns in order with history and X-Session-ID, and writes per-turn metrics', async ({
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
        ...MT,
        '--save-result',
        '--result-dir',
        tmpDir,
      ])
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/^=+ Multi-Turn Benchmark Result =+$/m)
      expect(run.stdout).toMatch(/^Conversations completed\/total: +4\/4$/m)
      const [result] = Object.values(await readJsonFiles(tmpDir))
      expect(validateModeFile(result)).toEqual({ valid: true })
      expect(result).toMatchObject({
        mode: 'multi_turn',
        num_conversations: 4,
        turns_per_conversation: 3,
        completed: 12,
        failed: 0,
        conversations_completed: 4,
        avg_turns_completed: 3,
      })
      const perTurn = result!.per_turn_metrics as Array<{
        turn_index: number
        completed: number
        total_input_tokens: number
      }>
      expect(perTurn.map((t) => [t.turn_index, t.completed])).toEqual([
        [0, 4],
        [1, 4],
        [2, 4],
      ])
      // History grows the prompt: later turns send more input tokens.
      expect(perTurn[2]!.total_input_tokens).toBeGreaterThan(perTurn[0]!.total_input_tokens)
      // Two think times per conversation.
      expect(result!.avg_conversation_duration_ms as number).toBeGreaterThanOrEqual(60)

      const chats = proxy.calls.filter((c) => c.path === '/v1/chat/completions')
      expect(chats).toHaveLength(12)
      const conv0 = chats.filter((c) => String(c.headers['x-request-id']).includes('conv-0-'))
      expect(conv0.map((c) => String(c.headers['x-request-id']).slice(-5))).toEqual([
        'turn0',
        'turn1',
        'turn2',
      ])
      expect(new Set(conv0.map((c) => c.headers['x-session-id'])).size).toBe(1)
      expect(String(conv0[0]!.headers['x-session-id'])).toMatch(/conv-0$/)
      const roles = conv0.map((c) =>
        (JSON.parse(c.body).messages as Array<{ role: string }>).map((m) => m.role),
      )
      expect(roles).toEqual([
        ['user'],
        ['user', 'assistant', 'user'],
        ['user', 'assistant', 'user', 'assistant', 'user'],
      ])
    } finally {
      await proxy.close()
    }
  })

  test('stops a conversation at a failed turn, or goes on when asked', async ({ sim, tmpDir }) => {
    const failTurn1 = (c: ProxyCall) => String(c.headers['x-request-id']).endsWith('conv-1-turn1')
    for (const [extra, expected] of [
      [[], { completed: 10, failed: 1, conversations_failed: 1 }],
      [['--multi-turn-continue-on-failure'], { completed: 11, failed: 1, conversations_failed: 1 }],
    ] as const) {
      const proxy = await startRecordingProxy(sim.url, failTurn1)
      try {
        const dir = join(tmpDir, String(extra.length))
        const run = await runCli([
          'serve',
          '--base-url',
          proxy.url,
          ...SMALL,
          ...MT,
          '--multi-turn-delay-ms',
          '0',
          ...extra,
          '--save-result',
          '--result-dir',
          dir,
        ])
        // One failed turn of 11 or 12 sent is above the default --max-failure-ratio: a warning only.
        const sent = expected.completed + expected.failed
        expect(run.stderr).toBe(
          `servebench: WARNING: 1 of ${sent} requests failed (${((1 / sent) * 100).toFixed(1)}%), above --max-failure-ratio 0.05 (5%)\n`,
        )
        expect(run.code).toBe(0)
        const [result] = Object.values(await readJsonFiles(dir))
        expect(validateModeFile(result)).toEqual({ valid: true })
        expect(result).toMatchObject(expected)
        expect((result!.failed_requests as Array<{ turn_index: number }>)[0]!.turn_index).toBe(1)
      } finally {
        await proxy.close()
      }
    }
  })

  test('reports invalid multi-turn flags together', async () => {
    const run = await runCli([
      'serve',
      ...SMALL,
      '--multi-turn',
      '--multi-turn-min-turns',
      '4',
      '--multi-turn-num-turns',
      '2',
      '--multi-turn-prefix-global-ratio',
      '0.6',
      '--multi-turn-prefix-conversation-ratio',
      '0.5',
    ])
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe(
      [
        'servebench: Invalid configuration (3 issues):',
        '  - --multi-turn needs --backend openai-chat (got openai): turns carry the chat history',
        '  - --multi-turn-min-turns must be <= the maximum number of turns (got min 4 > max 2)',
        '  - --multi-turn-prefix-global-ratio plus --multi-turn-prefix-conversation-ratio must be < 1 (got 1.1)',
      ].join('\n'),
    )
  })
})
