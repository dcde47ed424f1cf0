import { describe, expect, it } from 'vitest'
import { issuesOf } from '../../test/config-doors.ts'
import type { ServeBenchOptions } from '../config/dsl-options.ts'
import { datasets, load } from '../vitest/runtime/builders.ts'
import { benchConfigFromDsl, configFingerprint } from './from-dsl.ts'

// load.trace(), the failure thresholds and the client options of serveBench.
const ctx = { name: 'opts', defaultBaseUrl: 'http://127.0.0.1:4321', simulator: true }
const dslIssues = (options: ServeBenchOptions): string[] => issuesOf(() => benchConfigFromDsl(options, ctx))

describe('load.trace()', () => {
  it('replays a timed trace at its timestamps, scaled by timeScale, with an optional cap', () => {
    const trace = datasets.timedTrace({ path: 't.jsonl', secMultiplier: 0.001 })
    const plain = benchConfigFromDsl({ dataset: trace, load: load.trace() }, ctx)
    expect(plain.load).toEqual({ requestRate: Number.POSITIVE_INFINITY, burstiness: 1 })
    expect(plain.dataset).toMatchObject({ kind: 'timed_trace', selfTimed: true, secMultiplier: 0.001 })

    const fast = benchConfigFromDsl(
      { dataset: trace, load: load.trace({ timeScale: 0.5, maxConcurrency: 3 }) },
      ctx,
    )
    expect(fast.load).toEqual({ requestRate: Number.POSITIVE_INFINITY, burstiness: 1, maxConcurrency: 3 })
    expect(fast.dataset).toMatchObject({ kind: 'timed_trace', selfTimed: true, secMultiplier: 0.0005 })
    // A different replay speed is a different workload.
    expect(configFingerprint(fast)).not.toBe(configFingerprint(plain))
    // With no load, a timed trace is self-timed too: load.trace() is the same workload.
    expect(configFingerprint(benchConfigFromDsl({ dataset: trace }, ctx))).toBe(configFingerprint(plain))
  })

  it('needs a self-timed trace and a positive time scale', () => {
    expect(dslIssues({ load: load.trace() })).toEqual([
      "serveBench('opts').load load.trace() replays trace timestamps and needs datasets.timedTrace() (got a 'random' dataset)",
    ])
    expect(
      dslIssues({ dataset: datasets.timedTrace({ path: 't', selfTimed: false }), load: load.trace() }),
    ).toEqual([
      "serveBench('opts').dataset.selfTimed is false, but load.trace() sends each request at its trace timestamp; drop selfTimed: false or use another load",
    ])
    expect(
      dslIssues({
        dataset: datasets.timedTrace({ path: 't' }),
        load: load.trace({ timeScale: 0, maxConcurrency: 0 }),
      }),
    ).toEqual([
      "serveBench('opts').load.timeScale must be a finite number > 0 (got 0); 0.5 replays twice as fast",
      "serveBench('opts').load.maxConcurrency must be at least 1 (got 0)",
    ])
  })
})

describe('client and failure options', () => {
  it('maps readTimeoutS, maxRetries and the failure thresholds as the CLI flags do', () => {
    const c = benchConfigFromDsl(
      { readTimeoutS: 2.5, maxRetries: 3, maxFailureRatio: 0.1, failOnErrorRatio: 0.5, requestTimeoutS: 30 },
      ctx,
    )
    expect(c.request).toMatchObject({ readTimeoutS: 2.5, maxRetries: 3, timeoutS: 30 })
    expect(c.maxFailureRatio).toBe(0.1)
    expect(c.failOnErrorRatio).toBe(0.5)
    const d = benchConfigFromDsl({}, ctx)
    expect(d.request.readTimeoutS).toBeUndefined()
    expect(d.request.maxRetries).toBe(0)
    expect(d.maxFailureRatio).toBe(0.05)
    expect(d.failOnErrorRatio).toBeUndefined()
  })

  it('names every bad value', () => {
    expect(
      dslIssues({ readTimeoutS: 0, maxRetries: 1.5, maxFailureRatio: -0.1, failOnErrorRatio: 2 }),
    ).toEqual([
      `serveBench('opts').readTimeoutS must be a number of seconds > 0 (got "0")`,
      `serveBench('opts').maxRetries must be an integer (got "1.5")`,
      `serveBench('opts').maxFailureRatio must be a fraction between 0 and 1, such as 0.05 (got "-0.1")`,
      `serveBench('opts').failOnErrorRatio must be a fraction between 0 and 1, such as 0.05 (got "2")`,
    ])
  })
})

describe('serverMetricsIntervalS', () => {
  it('is --server-metrics-interval: a number of seconds > 0, outside the fingerprint', () => {
    const scraped = benchConfigFromDsl({ serverMetricsIntervalS: 2 }, ctx)
    expect(scraped.serverMetricsIntervalS).toBe(2)
    expect(benchConfigFromDsl({}, ctx).serverMetricsIntervalS).toBeUndefined()
    expect(configFingerprint(scraped)).toBe(configFingerprint(benchConfigFromDsl({}, ctx)))
    expect(dslIssues({ serverMetricsIntervalS: 0 })).toEqual([
      `serveBench('opts').serverMetricsIntervalS must be a number of seconds > 0 (got "0")`,
    ])
  })
})
