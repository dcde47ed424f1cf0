import { describe, expect, it } from 'vitest'
import { summarizeClientHealth } from '../../metrics/client-health.ts'
import { clientHealthJson } from '../../report/result/client-keys.ts'
import type { RunOutcome } from '../../runner/run-types.ts'
import { judgeRoundAt, readingMetricsOf } from './judged-scale.ts'

const checks = (...metrics: string[]) => metrics.map((metric) => ({ metric }))

describe('readingMetricsOf', () => {
  it('reads the latency each check judges from its label', () => {
    expect(readingMetricsOf(checks('mean TTFT', 'mean TPOT', 'output throughput'))).toEqual([
      'ttft',
      'decode',
      'e2el',
    ])
    expect(readingMetricsOf(checks('p99 ITL', 'error rate', 'goodput'))).toEqual(['itl', 'e2el', 'ttft'])
    expect(readingMetricsOf([])).toEqual([])
  })
})

describe('judgeRoundAt', () => {
  // The example gate's round: a 6 ms stall, ITL 10 ms, mean TTFT 35 ms.
  const health = summarizeClientHealth({
    main: {
      spanS: 5,
      eventLoopDelayMs: { p50: 0.5, p99: 6, max: 12 },
      eventLoopDelaySamples: 2_000,
      eventLoopUtilization: 0.3,
      cpuTimeMs: 1_500,
      gcPausesMs: [],
    },
    dispatch: { loop: 'closed', latenessMs: Array.from({ length: 88 }, () => 0.3) },
    scales: {
      readingMs: 10,
      readingMetric: 'itl',
      sendingMs: 370,
      medians: { itl: 10, ttft: 35, decode: 330, e2el: 370 },
    },
    succeeded: 96,
    cpuCount: 2,
  })
  const round = (): RunOutcome =>
    ({
      kind: 'generation',
      records: [],
      interrupted: false,
      retries: { retries: 0, retriedRequests: 0, recovered: 0 },
      clientHealth: health,
      result: {
        completed: 96,
        client_health: { ...clientHealthJson(health), simulator_step_lag_mean_ms: 0.4 },
      },
    }) as unknown as RunOutcome

  it('rewrites client_health at the checks scale, keeping the simulator lag', () => {
    const outcome = round()
    expect(health.saturated).toBe(true)
    judgeRoundAt(outcome, ['ttft', 'decode', 'e2el'])
    expect(outcome.result.client_health).toMatchObject({
      state: 'ok',
      saturated: false,
      latency_scale: { reading_metric: 'ttft', reading_ms: 35 },
      simulator_step_lag_mean_ms: 0.4,
    })
    expect(outcome.clientHealth?.state).toBe('ok')
  })

  it('keeps a round saturated when its checks judge ITL, or when the simulator lagged', () => {
    const itl = round()
    judgeRoundAt(itl, ['itl', 'ttft'])
    expect(itl.result.client_health).toMatchObject({ saturated: true })
    const lagging = round()
    ;(lagging.result.client_health as Record<string, unknown>).simulator_step_lag_mean_ms = 3
    judgeRoundAt(lagging, ['ttft'])
    expect(lagging.result.client_health).toMatchObject({ saturated: true, state: 'saturated' })
  })
})
